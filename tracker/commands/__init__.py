"""One module per `kipukas-tracker` subcommand, each with `register(subparsers)`."""
