//! The guard on passages shaped like real agent briefs (support policies, coding-agent
//! rules, pricing guidance, runbooks): faithful rewrites stay clean, and a rewrite that
//! drops or changes one fact is flagged with exactly that fact.

use briefkit::guard::{Fact, check};

struct Case {
    name: &'static str,
    original: &'static str,
    proposal: &'static str,
    /// (kind, value as written in the original)
    dropped: &'static [(&'static str, &'static str)],
    /// (kind, value as written in the proposal)
    introduced: &'static [(&'static str, &'static str)],
}

const CLEAN: &[(&str, &str)] = &[];

const CASES: &[Case] = &[
    // ---- faithful rewrites: nothing dropped, nothing introduced ----
    Case {
        name: "thousands separator removed",
        original: "Orders above 1,200 units need a supervisor's approval before they ship.",
        proposal: "Orders over 1200 units need supervisor approval to ship.",
        dropped: CLEAN,
        introduced: CLEAN,
    },
    Case {
        name: "price respelled with a currency code and period word",
        original: "The Team plan costs $1,200.00 per year, billed up front.",
        proposal: "Team plan: USD 1200/year, billed up front.",
        dropped: CLEAN,
        introduced: CLEAN,
    },
    Case {
        name: "percent sign spelled out",
        original: "Never offer more than a 15% goodwill discount.",
        proposal: "Goodwill discounts are capped at 15 percent.",
        dropped: CLEAN,
        introduced: CLEAN,
    },
    Case {
        name: "digits written as words",
        original: "A booking holds at most 5 travellers and 3 checked bags.",
        proposal: "Max five travellers and three checked bags per booking.",
        dropped: CLEAN,
        introduced: CLEAN,
    },
    Case {
        name: "words written as digits",
        original: "Ask no more than two clarifying questions, then act.",
        proposal: "Ask at most 2 clarifying questions, then act.",
        dropped: CLEAN,
        introduced: CLEAN,
    },
    Case {
        name: "url loses its sentence punctuation",
        original: "The escalation runbook is at https://wiki.example.org/runbooks/escalation.",
        proposal: "Runbook: https://wiki.example.org/runbooks/escalation",
        dropped: CLEAN,
        introduced: CLEAN,
    },
    Case {
        name: "url inside a markdown link",
        original: "Read the [style guide](https://docs.example.net/style) before editing.",
        proposal: "Follow https://docs.example.net/style when editing.",
        dropped: CLEAN,
        introduced: CLEAN,
    },
    Case {
        name: "fence style and info string change, code identical",
        original: "Run the checks:\n\n```bash\ncargo test --all\ncargo clippy -- -D warnings\n```\n",
        proposal: "Checks:\n~~~\ncargo test --all\ncargo clippy -- -D warnings\n~~~\n",
        dropped: CLEAN,
        introduced: CLEAN,
    },
    Case {
        name: "code block moved into a list item",
        original: "Deploy with:\n\n```\nmake deploy ENV=prod\n```\n",
        proposal: "- Deploy:\n\n  ```\n  make deploy ENV=prod\n  ```\n",
        dropped: CLEAN,
        introduced: CLEAN,
    },
    Case {
        name: "backticks dropped around a tool name",
        original: "Always call `lookup_reservation` before you change a booking.",
        proposal: "Call lookup_reservation before changing a booking.",
        dropped: CLEAN,
        introduced: CLEAN,
    },
    Case {
        name: "placeholder spacing normalised",
        original: "Greet the customer as {{ customer_name }} and quote {{ order_id }}.",
        proposal: "Greet {{customer_name}}; quote {{order_id}}.",
        dropped: CLEAN,
        introduced: CLEAN,
    },
    Case {
        name: "date and clock time kept while the sentence changes",
        original: "Treat the present moment as 2025-03-04 09:30:00 UTC.",
        proposal: "Now: 2025-03-04 09:30:00 (UTC).",
        dropped: CLEAN,
        introduced: CLEAN,
    },
    Case {
        name: "a repeated fact kept once",
        original: "Refunds over $300 need a manager. Remember: over $300, ask a manager first.",
        proposal: "Refunds over $300 need a manager's sign-off.",
        dropped: CLEAN,
        introduced: CLEAN,
    },
    Case {
        name: "K suffix written out",
        original: "Keep the whole brief under 8K tokens.",
        proposal: "The brief must stay below 8,000 tokens.",
        dropped: CLEAN,
        introduced: CLEAN,
    },
    Case {
        name: "ordered list renumbered after merging steps",
        original: "1. Ask for the order number.\n2. Verify the email on file.\n3. Issue the refund.\n",
        proposal: "1. Ask for the order number and verify the email on file.\n2. Issue the refund.\n",
        dropped: CLEAN,
        introduced: CLEAN,
    },
    Case {
        name: "heading section numbers dropped",
        original: "## 4. Cancellations\n\nCancel within 24 hours for free.\n",
        proposal: "## Cancellations\n\nFree cancellation within 24 hours.\n",
        dropped: CLEAN,
        introduced: CLEAN,
    },
    Case {
        name: "price range with an en dash and a spelled-out period",
        original: "Starter tiers usually land at $50-200/mo for small teams.",
        proposal: "Small teams: $50–$200 per month.",
        dropped: CLEAN,
        introduced: CLEAN,
    },
    Case {
        name: "range written with to instead of a dash",
        original: "Shipping takes 8–12 business days.",
        proposal: "Shipping: 8 to 12 business days.",
        dropped: CLEAN,
        introduced: CLEAN,
    },
    Case {
        name: "email address case changed",
        original: "Send legal questions to Legal-Team@Example.com only.",
        proposal: "Legal questions: legal-team@example.com only.",
        dropped: CLEAN,
        introduced: CLEAN,
    },
    Case {
        name: "version loses its v",
        original: "The sandbox runs Python v3.12.1; do not use newer syntax.",
        proposal: "Sandbox Python is 3.12.1, so avoid newer syntax.",
        dropped: CLEAN,
        introduced: CLEAN,
    },
    Case {
        name: "clock time respelled",
        original: "Offer a callback after 3 PM on weekdays.",
        proposal: "Weekday callbacks: after 3pm.",
        dropped: CLEAN,
        introduced: CLEAN,
    },
    Case {
        name: "percentage range keeps both ends",
        original: "Expect a 10-20% uplift from annual billing.",
        proposal: "Annual billing lifts revenue by 10% to 20%.",
        dropped: CLEAN,
        introduced: CLEAN,
    },
    Case {
        name: "whole paragraph reflowed, every fact kept",
        original: "You may issue travel vouchers worth up to $100 per passenger,\nbut only for delays longer than 3 hours. See https://policy.example.com/vouchers\nfor the full table (last updated 2024-11-02).",
        proposal: "Vouchers: max $100/passenger, delays over 3 hours only; table at https://policy.example.com/vouchers (updated 2024-11-02).",
        dropped: CLEAN,
        introduced: CLEAN,
    },
    Case {
        name: "number moved into inline code is still there",
        original: "Retry a failed request at most 4 times.",
        proposal: "Retry failed requests (`max_retries = 4`).",
        dropped: CLEAN,
        introduced: &[("inline_code", "`max_retries = 4`")],
    },
    Case {
        name: "a new url is listed but does not flag",
        original: "Point users to the status page when the API is down.",
        proposal: "Point users to https://status.example.io when the API is down.",
        dropped: CLEAN,
        introduced: &[("url", "https://status.example.io")],
    },
    // ---- one fact dropped or changed: exactly that fact is flagged ----
    Case {
        name: "dropped price",
        original: "Refunds above $500 need a manager; refunds under $40 are automatic.",
        proposal: "Refunds above $500 need a manager; small refunds are automatic.",
        dropped: &[("price", "$40")],
        introduced: CLEAN,
    },
    Case {
        name: "changed price",
        original: "The add-on costs $49 a month.",
        proposal: "The add-on costs $59 a month.",
        dropped: &[("price", "$49 a month")],
        introduced: &[("price", "$59 a month")],
    },
    Case {
        name: "price period changed",
        original: "Seats cost $20/month each.",
        proposal: "Seats cost $20/year each.",
        dropped: &[("price", "$20/month")],
        introduced: &[("price", "$20/year")],
    },
    Case {
        name: "currency changed",
        original: "The EU plan is €49.",
        proposal: "The EU plan is $49.",
        dropped: &[("price", "€49")],
        introduced: &[("price", "$49")],
    },
    Case {
        name: "dropped url",
        original: "File bugs at https://bugs.example.com/new and ask in https://chat.example.com/help.",
        proposal: "File bugs at https://bugs.example.com/new and ask in the help channel.",
        dropped: &[("url", "https://chat.example.com/help")],
        introduced: CLEAN,
    },
    Case {
        name: "changed url path",
        original: "Docs: https://docs.example.com/v2/auth",
        proposal: "Docs: https://docs.example.com/auth",
        dropped: &[("url", "https://docs.example.com/v2/auth")],
        introduced: &[("url", "https://docs.example.com/auth")],
    },
    Case {
        name: "dropped limit",
        original: "Each reservation may use at most one certificate and at most 3 gift cards.",
        proposal: "Each reservation may use at most one certificate and a few gift cards.",
        dropped: &[("number", "3")],
        introduced: CLEAN,
    },
    Case {
        name: "changed limit",
        original: "Tokens expire after 24 hours.",
        proposal: "Tokens expire after 48 hours.",
        dropped: &[("number", "24")],
        introduced: &[("number", "48")],
    },
    Case {
        name: "dropped percentage",
        original: "Partners get 12% off list price.",
        proposal: "Partners get a discount off list price.",
        dropped: &[("number", "12%")],
        introduced: CLEAN,
    },
    Case {
        name: "percentage turned into a plain number",
        original: "Alert when error rate exceeds 5%.",
        proposal: "Alert when the error rate exceeds 5.",
        dropped: &[("number", "5%")],
        introduced: &[("number", "5")],
    },
    Case {
        name: "dropped one end of a range",
        original: "Replacements arrive in 5 to 7 business days.",
        proposal: "Replacements arrive within 7 business days.",
        dropped: &[("number", "5")],
        introduced: CLEAN,
    },
    Case {
        name: "number word beyond twenty counts as its digits",
        original: "Returns are accepted for 30 days.",
        proposal: "Returns are accepted for thirty days.",
        dropped: CLEAN,
        introduced: CLEAN,
    },
    Case {
        name: "dropped K-suffixed budget",
        original: "Budget: 45K tokens of context for tool output.",
        proposal: "Budget: plenty of context for tool output.",
        dropped: &[("number", "45K")],
        introduced: CLEAN,
    },
    Case {
        name: "dropped date",
        original: "Fares booked before 2024-05-01 keep the old baggage rules.",
        proposal: "Older fares keep the old baggage rules.",
        dropped: &[("date", "2024-05-01")],
        introduced: CLEAN,
    },
    Case {
        name: "dropped clock time",
        original: "The maintenance window starts at 02:00 and lasts one hour.",
        proposal: "The maintenance window is at night and lasts one hour.",
        dropped: &[("time", "02:00")],
        introduced: CLEAN,
    },
    Case {
        name: "dropped version",
        original: "Pin the SDK to v4.2.0 until the migration lands.",
        proposal: "Pin the SDK until the migration lands.",
        dropped: &[("version", "v4.2.0")],
        introduced: CLEAN,
    },
    Case {
        name: "dropped ip address",
        original: "Only bind the debug server to 127.0.0.1, never to a public interface.",
        proposal: "Only bind the debug server locally, never to a public interface.",
        dropped: &[("ip_address", "127.0.0.1")],
        introduced: CLEAN,
    },
    Case {
        name: "dropped code block",
        original: "Format the answer as:\n\n```json\n{\"status\": \"ok\"}\n```\n\nand nothing else.",
        proposal: "Answer with a small JSON status object and nothing else.",
        dropped: &[("code_block", "```json\n{\"status\": \"ok\"}\n```")],
        introduced: CLEAN,
    },
    Case {
        name: "code block changed by one character",
        original: "Use exactly:\n\n```\ngit push --force-with-lease\n```\n",
        proposal: "Use exactly:\n\n```\ngit push --force\n```\n",
        dropped: &[("code_block", "```\ngit push --force-with-lease\n```")],
        introduced: &[("code_block", "```\ngit push --force\n```")],
    },
    Case {
        name: "dropped inline code",
        original: "Never run `rm -rf /` or `git reset --hard` without asking.",
        proposal: "Never run `rm -rf /` or destructive git commands without asking.",
        dropped: &[("inline_code", "`git reset --hard`")],
        introduced: CLEAN,
    },
    Case {
        name: "inline code renamed by case",
        original: "Call `get_order_status` for tracking questions.",
        proposal: "Call `Get_Order_Status` for tracking questions.",
        dropped: &[("inline_code", "`get_order_status`")],
        introduced: &[("inline_code", "`Get_Order_Status`")],
    },
    Case {
        name: "dropped placeholder",
        original: "Sign off with {{agent_name}} from {{team_name}}.",
        proposal: "Sign off with {{agent_name}}.",
        dropped: &[("placeholder", "{{team_name}}")],
        introduced: CLEAN,
    },
    Case {
        name: "dropped environment placeholder",
        original: "Authenticate with ${API_TOKEN} against ${API_BASE}.",
        proposal: "Authenticate with ${API_TOKEN} against the base URL.",
        dropped: &[("placeholder", "${API_BASE}")],
        introduced: CLEAN,
    },
    Case {
        name: "dropped template tag",
        original: "{% if premium %}Offer priority routing.{% endif %}",
        proposal: "Offer priority routing.{% endif %}",
        dropped: &[("placeholder", "{% if premium %}")],
        introduced: CLEAN,
    },
    Case {
        name: "dropped email",
        original: "Security reports go to security@example.com; press questions to press@example.com.",
        proposal: "Security reports go to security@example.com; press questions to the press team.",
        dropped: &[("email", "press@example.com")],
        introduced: CLEAN,
    },
    Case {
        name: "dropped number inside a renumbered list",
        original: "1. Confirm identity.\n2. Wait 2 days before a second reminder.\n",
        proposal: "1. Confirm identity, then wait before a second reminder.\n",
        dropped: &[("number", "2")],
        introduced: CLEAN,
    },
    Case {
        name: "dropped decimal rate",
        original: "Cached input is billed at 0.1 of the normal rate.",
        proposal: "Cached input is billed at a fraction of the normal rate.",
        dropped: &[("number", "0.1")],
        introduced: CLEAN,
    },
];

fn pairs(facts: &[Fact]) -> Vec<(String, String)> {
    facts
        .iter()
        .map(|f| (f.kind.name().to_string(), f.value.clone()))
        .collect()
}

fn expected(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[test]
fn the_table_has_at_least_forty_cases() {
    assert!(CASES.len() >= 40, "{} cases", CASES.len());
}

#[test]
fn every_case_reports_exactly_its_facts() {
    let mut failures = Vec::new();
    for case in CASES {
        let report = check(case.original, case.proposal);
        let dropped = pairs(&report.dropped);
        let introduced = pairs(&report.introduced);
        if dropped != expected(case.dropped) || introduced != expected(case.introduced) {
            failures.push(format!(
                "{}:\n  dropped    {dropped:?}\n  introduced {introduced:?}",
                case.name
            ));
        }
        if report.is_clean() != case.dropped.is_empty() {
            failures.push(format!("{}: is_clean is {}", case.name, report.is_clean()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_dropped_fact_points_at_its_line_and_column_in_the_original() {
    let report = check(
        "Intro line.\nRefunds over €80 need a ticket.\n",
        "Intro line.\nRefunds need a ticket.\n",
    );
    assert_eq!(report.dropped.len(), 1);
    let fact = &report.dropped[0];
    assert_eq!((fact.line, fact.column), (2, 14));
    assert_eq!(fact.canonical, "EUR 80");
}
