"""Ledgerly API entry point."""

from app.invoices import router as invoices_router
from fastapi import FastAPI

app = FastAPI(title="Ledgerly API", version="1.0.0")
app.include_router(invoices_router, prefix="/v1")


@app.get("/healthz", summary="Liveness probe")
async def healthz() -> dict[str, str]:
    return {"status": "ok"}
