"""The card table in the browser (``cardenvs serve``): :mod:`cardenvs.web.app` serves the pages over the
tables of :mod:`cardenvs.web.tables`. Needs the ``web`` extra (Starlette, uvicorn, python-multipart)."""
