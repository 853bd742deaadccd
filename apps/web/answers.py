"""The web table's answers: every response is JSON (or a static file) with the same safe
headers, and every request's language is read the same way."""

from __future__ import annotations

import time

from starlette.requests import HTTPConnection
from starlette.responses import JSONResponse, Response

from spar_apps.table.messages import Language, language, language_of_header
from spar_apps.web.limits import LimitError

HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


def request_language(request: HTTPConnection) -> Language:
    """The request's language: ``?lang=``, else its ``Accept-Language``, else English."""
    asked = request.query_params.get("lang")
    if asked:
        try:
            return language(asked[:20])
        except ValueError:
            pass  # a language the tables do not speak: the browser's, as if none was asked
    return language_of_header(request.headers.get("accept-language"))


def json_object(body: object) -> dict:
    if not isinstance(body, dict):
        raise LimitError("the request body must be a JSON object", 400)
    return body


def json_answer(content: object, status: int = 200, timed: float | None = None) -> Response:
    """A JSON answer; ``timed``: when the game's work began (a Server-Timing header says how long)."""
    headers = HEADERS
    if timed is not None:
        headers = {
            **HEADERS,
            "Server-Timing": f"game;dur={(time.perf_counter() - timed) * 1000:.2f}",
        }
    return JSONResponse(content, status, headers=headers)


def error_answer(status: int, message: str) -> Response:
    return JSONResponse({"error": message}, status, headers=HEADERS)
