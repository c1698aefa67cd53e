from app.invoices import InvoiceOut


async def test_list_invoices_is_ordered_by_issue_date(client, invoice_factory):
    older = await invoice_factory(number="INV-0001", issued_at="2025-10-01T00:00:00Z")
    newer = await invoice_factory(number="INV-0002", issued_at="2025-11-01T00:00:00Z")
    response = await client.get("/v1/invoices")
    assert response.status_code == 200
    numbers = [InvoiceOut(**row).number for row in response.json()]
    assert numbers == [newer.number, older.number]
