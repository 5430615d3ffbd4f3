//! `brief mcp`: the toolkit as MCP tools over stdio, for agents that should retrieve CCR
//! originals, compose briefs, guard rewrites and manage their session themselves.
//!
//! The protocol is the official Rust SDK's (`rmcp`); this module only lists the tools and
//! routes calls to [`tools`], which calls the same library operations as the CLI and
//! answers their documents as the CLI prints them with `--json`. Input schemas are data
//! (`schemas/*.json`, loaded by `schema`). Tool work is synchronous file and SQLite access,
//! so it runs on a blocking thread and the protocol loop stays responsive. Stdout carries
//! the protocol only; messages go to stderr. A message over [`MAX_MESSAGE_BYTES`] is
//! answered with a JSON-RPC error (`transport`).

pub(crate) mod schema;
mod session_tools;
pub mod tools;
mod transport;
mod work_tools;

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    InitializeResult, ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig,
    Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler, ServiceExt};
use serde_json::Value;

use crate::error::{Error, Result};

pub use transport::MAX_MESSAGE_BYTES;

/// The MCP server: the tool list, built once, in its fixed order.
struct Server {
    tools: Arc<Vec<Tool>>,
    options: Arc<tools::Options>,
}

impl Server {
    fn new(options: tools::Options) -> Server {
        let tools = tools::specs()
            .into_iter()
            .map(|spec| {
                // `schema::load` gives objects only; anything else is listed as an empty
                // object schema rather than taking the server down.
                let schema = match spec.schema {
                    Value::Object(schema) => schema,
                    _ => serde_json::Map::new(),
                };
                Tool::new(spec.name, spec.description, schema)
            })
            .collect();
        Server {
            tools: Arc::new(tools),
            options: Arc::new(options),
        }
    }
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        let mut info = InitializeResult::new(ServerCapabilities::builder().enable_tools().build());
        info.server_info = Implementation::new("briefkit", env!("CARGO_PKG_VERSION"));
        info.instructions = Some(
            "briefkit: retrieve CCR originals by hash, compose and guard agent briefs, and \
             manage a session's context budget (status, gate, purge, compact)."
                .into(),
        );
        info
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> std::result::Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools.as_ref().clone()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> std::result::Result<CallToolResponse, ErrorData> {
        let name = request.name.to_string();
        if !self.tools.iter().any(|t| t.name == name) {
            return Err(ErrorData::invalid_params(
                format!("unknown tool `{name}`"),
                None,
            ));
        }
        let arguments = request.arguments.map(Value::Object).unwrap_or(Value::Null);
        let options = Arc::clone(&self.options);
        let outcome =
            tokio::task::spawn_blocking(move || tools::call(&options, &name, arguments)).await;
        let result = match outcome {
            // The text is the document the matching command prints with `--json`.
            Ok(Ok(reply)) => {
                let mut result = CallToolResult::structured(reply.value);
                result.content = vec![ContentBlock::text(reply.text)];
                result
            }
            Ok(Err(err)) => CallToolResult::error(vec![ContentBlock::text(err.0)]),
            Err(join) => CallToolResult::error(vec![ContentBlock::text(format!(
                "the tool failed unexpectedly: {join}"
            ))]),
        };
        Ok(result.into())
    }
}

/// Serves MCP on stdin/stdout until the client closes stdin.
pub fn run(options: tools::Options) -> Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| {
            Error::input(format!("cannot start the MCP server's runtime: {e}")).with_source(e)
        })?;
    runtime.block_on(async {
        let service = Server::new(options)
            .serve(transport::stdio())
            .await
            .map_err(|e| Error::input(format!("MCP initialisation failed: {e}")).with_source(e))?;
        service
            .waiting()
            .await
            .map_err(|e| Error::input(format!("the MCP server stopped: {e}")).with_source(e))?;
        Ok::<_, Error>(())
    })?;
    // A blocking stdin read cannot be cancelled; do not wait for it.
    runtime.shutdown_background();
    Ok(())
}
