from .bdd import BddDataset
