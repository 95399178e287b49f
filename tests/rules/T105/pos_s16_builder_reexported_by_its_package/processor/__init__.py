from .processor import do_train, do_inference
