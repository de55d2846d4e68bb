"""The browsers' test server (tabs.serve): a client that hangs up is no error."""
from __future__ import annotations

from tests.site.browser import tabs


def test_a_client_that_hangs_up_is_quiet_and_other_errors_are_printed(tmp_path, capsys):
    server, _ = tabs.serve(tmp_path)
    try:
        for error in (BrokenPipeError(), ConnectionResetError()):
            try:
                raise error
            except ConnectionError:
                server.handle_error(None, ("127.0.0.1", 1))
        assert capsys.readouterr().err == ""
        try:
            raise ValueError("a bug in the handler")
        except ValueError:
            server.handle_error(None, ("127.0.0.1", 1))
        assert "a bug in the handler" in capsys.readouterr().err
    finally:
        server.shutdown()
