# stagec fixture: pos_s13_signal_flag_tested_per_rank (the helper that registers the handler)
# named: on the command line with train.py
# expect: none in this file
# ----
import signal


def init_signal_handler(callable):
    signal.signal(signal.SIGUSR2, callable)
