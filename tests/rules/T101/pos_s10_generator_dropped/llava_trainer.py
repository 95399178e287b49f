# stagec fixture: s10 pos_generator_dropped (issue 22, class 3; reviews 10b and 13b: LLaVA's
#                 length-grouped sampler, copied into Video-LLaVA and mPLUG-Owl)
# named: on the command line (an HF Trainer subclass's module, no launcher in sight)
# runtime: the indices are split by world size, so every rank must draw the same order
# expect:
#   T101 at 23:91 the per-modality shuffle gets generator=None although the function holds
#        the sampler's generator: its randperm draws from each rank's global RNG.
#   T101 at 24:95 the same for the language-only samples.
# ----
import torch
from torch.utils.data import Sampler


def get_length_grouped_indices(lengths, batch_size, world_size, generator=None):
    indices = torch.randperm(len(lengths), generator=generator)
    megabatch_size = world_size * batch_size
    return [indices[i : i + megabatch_size].tolist() for i in range(0, len(lengths), megabatch_size)]


def get_modality_length_grouped_indices(lengths, batch_size, world_size, generator=None):
    mm_lengths = [l for l in lengths if l > 0]
    lang_lengths = [-l for l in lengths if l < 0]
    mm_batches = get_length_grouped_indices(mm_lengths, batch_size, world_size, generator=None)
    lang_batches = get_length_grouped_indices(lang_lengths, batch_size, world_size, generator=None)
    megabatches = mm_batches + lang_batches
    order = torch.randperm(len(megabatches), generator=generator)
    return [i for j in order for i in megabatches[j]]


class LengthGroupedSampler(Sampler):
    def __init__(self, batch_size, world_size, lengths, generator=None):
        self.batch_size = batch_size
        self.world_size = world_size
        self.lengths = lengths
        self.generator = generator

    def __len__(self):
        return len(self.lengths)

    def __iter__(self):
        return iter(
            get_modality_length_grouped_indices(self.lengths, self.batch_size, self.world_size, generator=self.generator)
        )
