# stagec fixture: t22c pos_t22c_checkpoint_fallback (entry)
# expect: none (the findings are in src/ckpt.py and src/train.py)
# ----
from src.train import train

if __name__ == "__main__":
    train("/mnt/checkpoints/latest.pt")
