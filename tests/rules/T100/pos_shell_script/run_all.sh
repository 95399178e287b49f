#!/bin/sh
python3 train.py
