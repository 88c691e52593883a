def mean(values):
    """Arithmetic mean of a non-empty list."""
    if not values:
        raise ValueError("mean of an empty list")
    return sum(values) / len(values)


def clamp(x, low, high):
    """Limit x to the range [low, high]."""
    return max(low, min(high, x))
