"""A tiny in-memory inventory."""

from dataclasses import dataclass


@dataclass
class Item:
    name: str
    price: float
    quantity: int


class Inventory:
    def __init__(self) -> None:
        self.items: dict[str, Item] = {}

    def add(self, item: Item) -> None:
        self.items[item.name] = item

    def remove(self, name: str) -> None:
        del self.items[name]

    def total_value(self) -> float:
        return sum(item.price * item.quantity for item in self.items.values())
