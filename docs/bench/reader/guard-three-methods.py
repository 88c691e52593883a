import logging

log = logging.getLogger(__name__)


class Service:
    def __init__(self, store):
        self.store = store

    def get(self, key):
        if key is None:
            raise ValueError("key is required")
        return self.store.get(key)

    def put(self, key, value):
        if key is None:
            raise ValueError("key is required")
        self.store[key] = value

    def delete(self, key):
        if key is None:
            raise ValueError("key is required")
        self.store.pop(key, None)
