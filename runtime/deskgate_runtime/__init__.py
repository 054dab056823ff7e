"""deskgate input runtime: XTest input, EWMH windows and the clipboard behind a JSON-lines protocol."""
