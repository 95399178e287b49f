from argparse import ArgumentParser


def none_or_default(x, default):
    return x if x is not None else default


class HyperParameters():
    def parse(self, unknown_arg_ok=False):
        parser = ArgumentParser()
        parser.add_argument('--num_workers', type=int, default=8)
        parser.add_argument('--local_rank', default=0, type=int)
        parser.add_argument('--iterations', default=10000, type=int)
        parser.add_argument('--debug', action='store_true')
        if unknown_arg_ok:
            args, _ = parser.parse_known_args()
            self.args = vars(args)
        else:
            self.args = vars(parser.parse_args())
        self.args['lr'] = none_or_default(self.args.get('lr'), 1e-5)

    def __getitem__(self, key):
        return self.args[key]

    def __setitem__(self, key, value):
        self.args[key] = value
