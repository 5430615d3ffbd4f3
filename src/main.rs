fn main() -> std::process::ExitCode {
    briefkit::cli::main()
}
