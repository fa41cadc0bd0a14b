"""The referee application: the command line and local play now; the transport-agnostic
service, storage and the Discord adapter as they land (DESIGN §1)."""
