"""The invented businesses Tier B APIs are about. One resource each, with a filterable enum."""

from __future__ import annotations

from dataclasses import dataclass

from .._errors import SpecError
from ..api import KINDS


@dataclass(frozen=True)
class Field:
    """A field of a Tier B record: its kind of value and what a client may write."""
    name: str
    kind: str                       # one of the engine's kinds of value (person, money_cents, enum, ...)
    choices: tuple[str, ...] = ()
    writable: bool = True
    low: int = 0
    high: int = 0

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise SpecError(f"field {self.name!r}: unknown kind {self.kind!r}")
        if self.kind == "enum" and not self.choices:
            raise SpecError(f"field {self.name!r}: an enum needs choices")


@dataclass(frozen=True)
class Resource:
    """One collection of the API, served at ``/<plural>`` and ``/<plural>/<id>``."""

    name: str
    plural: str
    id_prefix: str
    fields: tuple[Field, ...]
    filter_field: str = ""

    @property
    def writable_fields(self) -> tuple[Field, ...]:
        """The fields a client may set."""
        return tuple(f for f in self.fields if f.writable)


@dataclass(frozen=True)
class Domain:
    """A Tier B product: its brand and the resource its API serves."""
    key: str          # used in task ids: tierb_NN_<key>
    brand: str        # the product the API belongs to
    resource: Resource

    @property
    def slug(self) -> str:
        """The brand in lower case, for hosts and media types."""
        return self.brand.lower()


def _res(name: str, plural: str, prefix: str, filter_field: str, *fields: Field) -> Resource:
    return Resource(name=name, plural=plural, id_prefix=prefix, fields=fields, filter_field=filter_field)


F = Field
DOMAINS: tuple[Domain, ...] = (
    Domain("invoices", "Ledgerly", _res(
        "invoice", "invoices", "inv", "status",
        F("customer", "company"), F("amount_cents", "money_cents", high=250_000), F("currency", "currency"),
        F("status", "enum", ("draft", "open", "paid", "void")), F("due_date", "date"))),
    Domain("orders", "Cartwheel", _res(
        "order", "orders", "ord", "state",
        F("customer_email", "email"), F("total_cents", "money_cents", high=90_000),
        F("state", "enum", ("pending", "packed", "shipped", "delivered", "cancelled")),
        F("items_count", "int", low=1, high=12), F("placed_at", "datetime"))),
    Domain("tickets", "Helpwise", _res(
        "ticket", "tickets", "tkt", "priority",
        F("subject", "text"), F("requester", "person"),
        F("priority", "enum", ("low", "normal", "high", "urgent")),
        F("status", "enum", ("new", "open", "pending", "solved")), F("opened_at", "datetime"))),
    Domain("contacts", "Rolodeck", _res(
        "contact", "contacts", "con", "lifecycle",
        F("name", "person"), F("email", "email"), F("company", "company"), F("phone", "phone"),
        F("lifecycle", "enum", ("lead", "prospect", "customer", "churned")))),
    Domain("shipments", "Freightline", _res(
        "shipment", "shipments", "shp", "carrier",
        F("destination", "city"), F("weight_grams", "int", low=50, high=40_000),
        F("carrier", "enum", ("dhl", "ups", "fedex", "postnl")),
        F("tracking_code", "sku"), F("ship_date", "date"))),
    Domain("bookings", "Staywell", _res(
        "booking", "bookings", "bkg", "status",
        F("guest", "person"), F("city", "city"), F("nights", "int", low=1, high=14),
        F("status", "enum", ("held", "confirmed", "checked_in", "cancelled")), F("check_in", "date"))),
    Domain("tasks", "Taskforge", _res(
        "task", "tasks", "tsk", "column",
        F("title", "text"), F("assignee", "person"),
        F("column", "enum", ("backlog", "todo", "doing", "review", "done")),
        F("points", "int", low=1, high=13), F("due", "date"))),
    Domain("products", "Shelfspace", _res(
        "product", "products", "prd", "category",
        F("sku", "sku"), F("title", "text"), F("price_cents", "money_cents", high=30_000),
        F("category", "enum", ("apparel", "garden", "kitchen", "toys", "books")), F("in_stock", "bool"))),
    Domain("subscriptions", "Recurra", _res(
        "subscription", "subscriptions", "sub", "plan",
        F("customer", "company"), F("plan", "enum", ("basic", "pro", "enterprise")),
        F("seats", "int", low=1, high=250), F("renews_on", "date"),
        F("state", "enum", ("trialing", "active", "past_due", "canceled")))),
    Domain("expenses", "Spendwise", _res(
        "expense", "expenses", "exp", "category",
        F("employee", "person"), F("amount_cents", "money_cents", high=80_000), F("currency", "currency"),
        F("category", "enum", ("travel", "meals", "software", "hardware", "office")), F("spent_on", "date"))),
    Domain("incidents", "Pagewatch", _res(
        "incident", "incidents", "inc", "severity",
        F("title", "text"), F("service", "enum", ("api", "web", "billing", "search")),
        F("severity", "enum", ("sev1", "sev2", "sev3", "sev4")), F("commander", "person"),
        F("started_at", "datetime"))),
    Domain("listings", "Nestfind", _res(
        "listing", "listings", "lst", "kind",
        F("address", "city"), F("price_cents", "money_cents", high=400_000),
        F("kind", "enum", ("apartment", "house", "studio", "loft")), F("bedrooms", "int", low=0, high=6),
        F("agent_phone", "phone"))),
)

DOMAIN_BY_KEY = {d.key: d for d in DOMAINS}
