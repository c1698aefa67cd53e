"""Invoice routes: list and fetch a tenant's invoices."""

from dataclasses import dataclass
from datetime import datetime
from typing import Annotated

from app.auth import CurrentUser, current_user
from app.logging import get_logger
from app.services import invoices as service
from fastapi import APIRouter, Depends, HTTPException, Query

router = APIRouter(tags=["invoices"])
log = get_logger(__name__)


@dataclass(frozen=True)
class InvoiceOut:
    id: str
    number: str
    status: str
    amount: int  # minor units (cents)
    currency: str
    issued_at: datetime


@router.get("/invoices", summary="List invoices", response_model=list[InvoiceOut])
async def list_invoices(
    user: Annotated[CurrentUser, Depends(current_user)],
    cursor: str | None = None,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
) -> list[InvoiceOut]:
    page = await service.list_invoices(user.tenant_id, cursor=cursor, limit=limit)
    log.info("invoice.listed", count=len(page))
    return [InvoiceOut(**row) for row in page]


@router.get("/invoices/{invoice_id}", summary="Get one invoice", response_model=InvoiceOut)
async def get_invoice(
    invoice_id: str, user: Annotated[CurrentUser, Depends(current_user)]
) -> InvoiceOut:
    row = await service.get_invoice(user.tenant_id, invoice_id)
    if row is None:
        raise HTTPException(status_code=404, detail="invoice not found")
    return InvoiceOut(**row)
