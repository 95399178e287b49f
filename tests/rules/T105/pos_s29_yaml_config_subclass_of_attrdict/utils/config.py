import yaml


class AttrDict(dict):
    def __init__(self, *args, **kwargs):
        super(AttrDict, self).__init__(*args, **kwargs)
        self.__dict__ = self
        for key in self.__dict__:
            value = self.__dict__[key]
            if isinstance(value, dict):
                self.__dict__[key] = AttrDict(value)


class Config(AttrDict):
    def __init__(self, filename=None):
        with open(filename, "r") as f:
            cfg_dict = yaml.load(f, yaml.SafeLoader)
        super(Config, self).__init__(cfg_dict)


def setup(config_file):
    return Config(config_file)
