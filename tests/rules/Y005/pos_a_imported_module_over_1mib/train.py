import torch

from crc_table import TABLE


def main():
    print(len(TABLE), torch.__version__)


if __name__ == "__main__":
    main()
