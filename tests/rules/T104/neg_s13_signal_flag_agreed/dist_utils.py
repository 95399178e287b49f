# stagec fixture: neg_s13_signal_flag_agreed (the helper that registers the handler)
# named: on the command line with train.py
# expect: none in this file
# ----
import signal


def init_signal_handler(callable):
    signal.signal(signal.SIGUSR2, callable)
