from pkg.pkg import Denoiser
from pkg.trainer import Trainer
