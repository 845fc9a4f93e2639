"""What every route of the console shares: one-line errors, the signed-in principal, the error table.

The guard middleware in `parley.web.app` has already refused requests without a sign-in (401) and
writes without the console's origin and CSRF token (403) before any route runs.
"""

from __future__ import annotations

from typing import Annotated, Any, NoReturn

from fastapi import Depends, HTTPException, Request

from parley.governance.safe_text import printable
from parley.web.auth import SignedIn
from parley.web.models import ErrorBody

NOT_SIGNED_IN = "not signed in: sign in at /login with your console token"
WRITE_ERRORS: dict[int | str, dict[str, Any]] = {
    401: {"model": ErrorBody, "description": "not signed in"},
    403: {"model": ErrorBody, "description": "foreign origin, or missing or wrong CSRF token"},
    404: {"model": ErrorBody, "description": "no such game, run or session"},
    409: {"model": ErrorBody, "description": "stale: the state changed since the page loaded it"},
    422: {"model": ErrorBody, "description": "invalid body"},
}
READ_ERRORS: dict[int | str, dict[str, Any]] = {
    401: WRITE_ERRORS[401],
    404: WRITE_ERRORS[404],
}


def fail(status: int, message: str) -> NoReturn:
    """Answer the request with status and a one-line, printable message."""
    raise HTTPException(status_code=status, detail=printable(message))


def signed_in(request: Request) -> SignedIn:
    """The principal signed in for this request (the guard middleware looked the cookie up)."""
    found: SignedIn | None = getattr(request.state, "signed_in", None)
    if found is None:
        fail(401, NOT_SIGNED_IN)
    return found


SignedInPrincipal = Annotated[SignedIn, Depends(signed_in)]
