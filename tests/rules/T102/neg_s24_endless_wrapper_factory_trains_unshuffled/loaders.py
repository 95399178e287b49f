class PrefetchLoader(object):
    def __init__(self, loader, img_normalize=None):
        self.loader = loader
        self.img_normalize = img_normalize

    def __iter__(self):
        for batch in self.loader:
            yield batch

    def __len__(self):
        return len(self.loader)


class InfiniteIterator(object):
    def __init__(self, iterable):
        self.iterable = iterable
        self.iterator = iter(iterable)

    def __iter__(self):
        while True:
            try:
                batch = next(self.iterator)
            except StopIteration:
                self.iterator = iter(self.iterable)
                batch = next(self.iterator)
            yield batch
