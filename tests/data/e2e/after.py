"""Tiny inventory helpers."""

from dataclasses import dataclass


@dataclass
class Item:
    name: str
    quantity: int
    price: float


def total_value(items: list[Item]) -> float:
    total = 0.0
    for item in items:
        total += item.price * item.quantity
    return total


def names(items: list[Item]) -> list[str]:
    return [item.name for item in items]
