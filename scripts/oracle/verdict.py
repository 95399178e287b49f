#!/usr/bin/env python3
"""Determined's own verdict on experiment configs: the differential oracle for stagec.

Run it with the interpreter of the environment that scripts/oracle/setup.sh made:

    target/oracle-venv/bin/python scripts/oracle/verdict.py \
        --schemas ../shared/reference/determined-expconf-v0 < configs.jsonl

Each input line is one experiment config as JSON, in the form the master holds
after its YAML->JSON conversion (see README.md).  Each output line is a JSON
object:

    sanity        errors of the sanity validator (eventually* keywords ignored)
    completeness  errors of the completeness validator on the config as given
    submit_completeness
                  errors of the completeness validator on the config after the
                  master's merges and defaults (a stock cluster is assumed)
    verdict       "accept" or "reject": what `det experiment create` gets
    reasons       why it is rejected, each "<stage>: <message>"
    cluster_dependent
                  checks whose outcome depends on the cluster (named workspace,
                  project or resource pool must exist); not part of verdict

The keyword implementations are Determined's own, taken from the determined
0.17.15 package (determined/common/schemas/extensions.py), wired into a draft-07
validator the way that release's expconf/_validate.py wires them.  Where the
master's Go implementation of a keyword behaves differently from that Python
code, a thin adapter gives the Go behaviour (see GO_SEMANTICS below).
"""

import argparse
import copy
import decimal
import importlib.metadata
import math
import importlib.util
import json
import os
import re
import sys
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

import jsonschema

EXPCONF = "http://determined.ai/schemas/expconf/v0/"
EXPERIMENT_URL = EXPCONF + "experiment.json"

# The checkpoint storage a stock master has (master.yaml as packaged): the
# master merges it into every experiment before the completeness check.
STOCK_CHECKPOINT_STORAGE = {
    "type": "shared_fs",
    "host_path": "/tmp",
    "storage_path": "determined-checkpoint",
    "save_experiment_best": 0,
    "save_trial_best": 1,
    "save_trial_latest": 1,
}

# Searchers the master refuses for new experiments (SearcherConfig.AssertCurrent).
EOL_SEARCHERS = ("sync_halving", "adaptive", "adaptive_simple", "custom")
# Searchers that must carry max_time and time_metric (same function).
TIME_SEARCHERS = ("adaptive_asha", "async_halving")

# Which determined release the keyword code comes from.
DETERMINED_VERSION = "0.17.15"


# --------------------------------------------------------------------------
# Loading
# --------------------------------------------------------------------------


def load_determined_extensions() -> Any:
    """Import determined/common/schemas/extensions.py by its file path.

    Importing it as determined.common.schemas.extensions would run the package
    __init__ files, which pull in the whole training harness (numpy, requests,
    ...); the extensions file itself needs only jsonschema and os.
    """
    version = importlib.metadata.version("determined")
    if version != DETERMINED_VERSION:
        raise SystemExit(f"verdict.py: need determined=={DETERMINED_VERSION}, found {version}")
    spec = importlib.util.find_spec("determined")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("verdict.py: the determined package is not installed")
    root = list(spec.submodule_search_locations)[0]
    path = os.path.join(root, "common", "schemas", "extensions.py")
    mod_spec = importlib.util.spec_from_file_location("determined_schema_extensions", path)
    assert mod_spec is not None and mod_spec.loader is not None
    module = importlib.util.module_from_spec(mod_spec)
    mod_spec.loader.exec_module(module)
    return module


def load_schema_store(directory: str) -> Dict[str, Dict]:
    """All *.json schemas of a directory, keyed by their $id."""
    store: Dict[str, Dict] = {}
    for name in sorted(os.listdir(directory)):
        if not name.endswith(".json"):
            continue
        with open(os.path.join(directory, name), encoding="utf-8") as f:
            schema = json.load(f)
        url = schema.get("$id")
        if isinstance(url, str):
            store[url] = schema
    if EXPERIMENT_URL not in store:
        raise SystemExit(f"verdict.py: no schema with $id {EXPERIMENT_URL} in {directory}")
    return store


# --------------------------------------------------------------------------
# GO_SEMANTICS: adapters where the master (Go) differs from the 0.17.15 Python
# --------------------------------------------------------------------------


def go_clean(path: str) -> str:
    """Go's path/filepath.Clean on a POSIX system."""
    if path == "":
        return "."
    rooted = path.startswith("/")
    parts: List[str] = []
    for part in path.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if parts and parts[-1] != "..":
                parts.pop()
            elif not rooted:
                parts.append("..")
            continue
        parts.append(part)
    out = "/".join(parts)
    if rooted:
        return "/" + out
    return out or "."


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


_MISSING = object()


def _go_property_by_path(instance: Any, path: str) -> Any:
    """Go's getPropertyByPath: each step must be an object; a missing key is null."""
    obj = instance
    for key in path.split("."):
        if not isinstance(obj, dict):
            return _MISSING
        obj = obj.get(key)
    return obj


def make_go_extensions(ext: Any) -> Dict[str, Callable]:
    def eventuallyRequired(validator, required, instance, schema):  # noqa: N802
        # Go: only objects are checked, and a null value counts as missing.
        if not isinstance(instance, dict):
            return
        present = {k: v for k, v in instance.items() if v is not None}
        yield from ext.eventuallyRequired(validator, required, present, schema)

    def compareProperties(validator, compare, instance, schema):  # noqa: N802
        # Go recovers from any panic (wrong shapes, wrong types) and reports nothing.
        if not isinstance(instance, dict):
            return
        a = _go_property_by_path(instance, compare["a"])
        b = _go_property_by_path(instance, compare["b"])
        typ = compare["type"]
        if typ in ("a<b", "a<=b"):
            if _is_number(a) and _is_number(b):
                yield from ext.compareProperties(validator, compare, instance, schema)
            return
        if typ == "a_is_subdir_of_b":
            # Go: filepath.Clean both, then a plain string-prefix test (absolute a),
            # or a ".." prefix test (relative a).  os.path.normpath differs from
            # Clean on a leading "//", so this one is done here.
            if not (isinstance(a, str) and isinstance(b, str)):
                return
            a_norm, b_norm = go_clean(a), go_clean(b)
            if a_norm.startswith("/"):
                bad = not a_norm.startswith(b_norm)
            else:
                bad = a_norm.startswith("..")
            if bad:
                yield jsonschema.ValidationError(
                    f"{compare['a']} must be a subdirectory of {compare['b']}"
                )
            return
        # The master ignores unknown comparison types.

    return {
        "eventuallyRequired": eventuallyRequired,
        "compareProperties": compareProperties,
    }


def _go_regex(pattern: str) -> "re.Pattern[str]":
    # RE2 without flags: "$" is the end of the text only; Python's "$" also
    # matches before a final newline.  The schemas use "$" only as an anchor.
    out = []
    escaped = False
    in_class = False
    for ch in pattern:
        if escaped:
            out.append(ch)
            escaped = False
            continue
        if ch == "\\":
            out.append(ch)
            escaped = True
            continue
        if ch == "[":
            in_class = True
        elif ch == "]":
            in_class = False
        elif ch == "$" and not in_class:
            out.append(r"\Z")
            continue
        out.append(ch)
    return re.compile("".join(out))


_REGEX_CACHE: Dict[str, "re.Pattern[str]"] = {}


def go_pattern(validator, pattern, instance, schema):
    if not isinstance(instance, str):
        return
    rx = _REGEX_CACHE.get(pattern)
    if rx is None:
        rx = _REGEX_CACHE[pattern] = _go_regex(pattern)
    if not rx.search(instance):
        yield jsonschema.ValidationError(f"{instance!r} does not match {pattern!r}")


def _go_integer(checker, instance) -> bool:
    # The master's validator calls a number an integer only when its JSON text
    # is an integer literal; json.loads gives int exactly for those.
    return isinstance(instance, int) and not isinstance(instance, bool)


# --------------------------------------------------------------------------
# Validators
# --------------------------------------------------------------------------


class Oracle:
    def __init__(self, store: Dict[str, Dict], go_semantics: bool = True) -> None:
        self.store = store
        self.ext = load_determined_extensions()
        self.go = go_semantics
        self._cache: Dict[Tuple[str, bool], Any] = {}

    def _keywords(self, complete: bool) -> Dict[str, Callable]:
        # As determined 0.17.15's expconf/_validate.py: the sanity validator has
        # every extension but eventuallyRequired/eventually, which the
        # completeness validator adds.
        ext = self.ext
        kw: Dict[str, Callable] = {
            "disallowProperties": ext.disallowProperties,
            "union": ext.union,
            "checks": ext.checks,
            "compareProperties": ext.compareProperties,
            "conditional": ext.conditional,
            "optionalRef": ext.optionalRef,
        }
        if complete:
            kw["eventuallyRequired"] = ext.eventuallyRequired
            kw["eventually"] = ext.eventually
        if self.go:
            go = make_go_extensions(ext)
            kw["compareProperties"] = go["compareProperties"]
            if complete:
                kw["eventuallyRequired"] = go["eventuallyRequired"]
            kw["pattern"] = go_pattern
        return kw

    def validator(self, url: str = EXPERIMENT_URL, complete: bool = False) -> Any:
        key = (url, complete)
        v = self._cache.get(key)
        if v is not None:
            return v
        schema = self.store[url]
        store = self.store

        def no_network(ref_url: str) -> Any:
            if ref_url in store:
                return store[ref_url]
            raise jsonschema.RefResolutionError(f"unknown schema {ref_url}")

        resolver = jsonschema.RefResolver(
            base_uri=url,
            referrer=schema,
            store=dict(store),
            handlers={"http": no_network, "https": no_network},
        )
        type_checker = jsonschema.Draft7Validator.TYPE_CHECKER
        if self.go:
            type_checker = type_checker.redefine("integer", _go_integer)
        cls = jsonschema.validators.extend(
            jsonschema.Draft7Validator, self._keywords(complete), type_checker=type_checker
        )
        v = cls(schema=schema, resolver=resolver)
        self._cache[key] = v
        return v

    def errors(self, instance: Any, url: str = EXPERIMENT_URL, complete: bool = False) -> List[str]:
        v = self.validator(url, complete)
        out: List[str] = []
        for err in v.iter_errors(instance):
            for leaf in _leaves(err):
                out.append(render_error(leaf))
        return sorted(set(out))


def _leaves(err: jsonschema.ValidationError) -> Iterator[jsonschema.ValidationError]:
    # The master reports only the leaves of its error tree; anyOf/oneOf keep
    # their branch errors in .context here.
    if err.context and err.validator in ("anyOf", "oneOf"):
        for sub in err.context:
            yield from _leaves(sub)
    else:
        yield err


def _go_value(v: Any) -> str:
    # Roughly Go's %#v for a JSON value.
    if v is None:
        return "<nil>"
    if isinstance(v, str):
        return json.dumps(v)
    return json.dumps(v)


def _json_type(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, (int, float)):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    return "object"


def go_message(err: jsonschema.ValidationError) -> str:
    """The master's wording for the standard keywords (santhosh-tekuri/jsonschema v2)."""
    kw, val, inst = err.validator, err.validator_value, err.instance
    if kw == "type":
        types = [val] if isinstance(val, str) else list(val)
        return f"expected {' or '.join(types)}, but got {_json_type(inst)}"
    if kw == "required":
        m = re.match(r"^'(.*)' is a required property$", err.message)
        name = m.group(1) if m else err.message
        return f"missing properties: {json.dumps(name)}"
    if kw == "additionalProperties" and isinstance(inst, dict):
        props = err.schema.get("properties", {})
        pats = err.schema.get("patternProperties", {})
        extra = [
            k for k in inst if k not in props and not any(re.search(p, k) for p in pats)
        ]
        return "additionalProperties " + ", ".join(json.dumps(k) for k in sorted(extra)) + " not allowed"
    if kw == "const":
        if isinstance(val, (dict, list)):
            return "const failed"
        return f"value must be {_go_value(val)}"
    if kw == "enum":
        if any(isinstance(x, (dict, list)) for x in val):
            return "enum failed"
        if len(val) == 1:
            return f"value must be {_go_value(val[0])}"
        return "value must be one of " + ", ".join(_go_value(x) for x in val)
    if kw == "minimum":
        return f"must be >= {val} but found {json.dumps(inst)}"
    if kw == "maximum":
        return f"must be <= {val} but found {json.dumps(inst)}"
    if kw == "exclusiveMinimum":
        return f"must be > {val} but found {json.dumps(inst)}"
    if kw == "exclusiveMaximum":
        return f"must be < {val} but found {json.dumps(inst)}"
    if kw == "pattern":
        return f"does not match pattern {json.dumps(val)}"
    if kw == "minLength":
        return f"length must be >= {val}, but got {len(inst)}"
    if kw == "not":
        return "not failed"
    if kw == "oneOf":
        return "oneOf failed"
    if kw == "anyOf":
        return "anyOf failed"
    return err.message


def _path_string(path: Any) -> str:
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path)


def render_error(err: jsonschema.ValidationError) -> str:
    return f"<config>{_path_string(err.absolute_path)}: {go_message(err)}"


# --------------------------------------------------------------------------
# What the master does to a config before its completeness check
# --------------------------------------------------------------------------


def _is_obj(x: Any) -> bool:
    return isinstance(x, dict)


def merge_checkpoint_storage(user: Any, cluster: Dict) -> Any:
    """schemas.Merge(user, cluster) for CheckpointStorageConfigV0 (a union).

    Common fields (save_*) merge field by field, user first.  If the user named
    a storage type, only that member is kept and merged with the cluster's
    member of the same type, if any; otherwise the cluster's member is taken.
    Azure merges container alone, and takes the credentials as a set from
    whichever side has one.
    """
    if not _is_obj(user):
        return copy.deepcopy(cluster)
    common = ("save_experiment_best", "save_trial_best", "save_trial_latest")
    out: Dict[str, Any] = {}
    for k in common:
        v = user.get(k)
        out[k] = v if v is not None else cluster.get(k)
    utype = user.get("type")
    ctype = cluster.get("type")
    if utype is None:
        member = {k: v for k, v in cluster.items() if k not in common}
        out.update(copy.deepcopy(member))
        return out
    umember = {k: v for k, v in user.items() if k not in common}
    if utype == ctype:
        if utype == "azure":
            merged = {"type": "azure"}
            merged["container"] = (
                umember.get("container")
                if umember.get("container") is not None
                else cluster.get("container")
            )
            cred = umember
            if umember.get("connection_string") is None and umember.get("account_url") is None:
                cred = cluster
            for k in ("connection_string", "account_url", "credential"):
                if cred.get(k) is not None:
                    merged[k] = copy.deepcopy(cred[k])
            umember = merged
        else:
            merged = copy.deepcopy(umember)
            for k, v in cluster.items():
                if k in common:
                    continue
                if merged.get(k) is None and v is not None:
                    merged[k] = copy.deepcopy(v)
            umember = merged
    out.update(copy.deepcopy(umember))
    return out


# Runtime defaults (Go WithDefaults methods, not schema "default"s).
def _runtime_defaults(cfg: Dict) -> None:
    if cfg.get("name") is None:
        cfg["name"] = "Experiment (oracle-default-name)"
    repro = cfg.get("reproducibility")
    if _is_obj(repro) and repro.get("experiment_seed") is None:
        repro["experiment_seed"] = 1
    env = cfg.get("environment")
    if _is_obj(env):
        image = env.get("image")
        if isinstance(image, str):
            env["image"] = {"cpu": image, "cuda": image, "rocm": image}
        elif _is_obj(image):
            if image.get("cuda") is None and image.get("gpu") is not None:
                image["cuda"] = image["gpu"]
            image.pop("gpu", None)
            for k in ("cpu", "cuda", "rocm"):
                if image.get(k) is None:
                    image[k] = f"determinedai/oracle-default-{k}-image"


class Defaulter:
    """Fills schema "default"s the way schemas.WithDefaults does, roughly:
    a missing or null property whose default is not null gets the default, and
    the filling recurses into objects, union members, maps and lists."""

    def __init__(self, store: Dict[str, Dict]) -> None:
        self.store = store

    def _resolve(self, schema: Any) -> Any:
        seen = 0
        while isinstance(schema, dict) and "$ref" in schema and seen < 20:
            schema = self.store.get(schema["$ref"], {})
            seen += 1
        return schema

    def _union_member(self, schema: Dict, instance: Any) -> Optional[Dict]:
        union = schema.get("union")
        if union is None and isinstance(schema.get("then"), dict):
            union = schema["then"].get("union")
        if not isinstance(union, dict):
            return None
        for item in union.get("items", []):
            key = item.get("unionKey", "")
            if key.startswith("const:") and _is_obj(instance):
                name, value = key[len("const:"):].split("=", 1)
                if instance.get(name) == value:
                    return self._resolve(item)
        return None

    def fill(self, instance: Any, schema: Any) -> Any:
        schema = self._resolve(schema)
        if not isinstance(schema, dict):
            return instance
        if "optionalRef" in schema and instance is not None:
            instance = self.fill(instance, self.store.get(schema["optionalRef"], {}))
        member = self._union_member(schema, instance)
        if member is not None:
            instance = self.fill(instance, member)
        if _is_obj(instance):
            props = schema.get("properties", {})
            for name, sub in props.items():
                if not isinstance(sub, dict):
                    continue
                if instance.get(name) is None and sub.get("default") is not None:
                    instance[name] = copy.deepcopy(sub["default"])
                if name in instance and instance[name] is not None:
                    instance[name] = self.fill(instance[name], sub)
            addl = schema.get("additionalProperties")
            if isinstance(addl, dict):
                for name in list(instance):
                    if name not in props and instance[name] is not None:
                        instance[name] = self.fill(instance[name], addl)
        elif isinstance(instance, list):
            items = schema.get("items")
            if isinstance(items, dict):
                instance = [self.fill(x, items) if x is not None else x for x in instance]
        return instance


def submitted_config(cfg: Dict, store: Dict[str, Dict], cluster_storage: Dict) -> Dict:
    """The config the master checks for completeness in parseCreateExperiment."""
    out = copy.deepcopy(cfg)
    out["checkpoint_storage"] = merge_checkpoint_storage(out.get("checkpoint_storage"), cluster_storage)
    out = Defaulter(store).fill(out, store[EXPERIMENT_URL])
    _runtime_defaults(out)
    return out


# --------------------------------------------------------------------------
# Numbers as the master holds them
# --------------------------------------------------------------------------


class NotConvertible(ValueError):
    pass


def go_numbers(x: Any) -> Any:
    """Every number as it comes out of the master's YAML->JSON conversion.

    ghodss/yaml decodes its intermediate JSON into interface{}, so every number
    becomes a float64 before json.Marshal writes it back: integral values below
    1e21 are written as integers (with the float's shortest digits, so 2**63-1
    becomes 9223372036854776000), everything else as a float.  Idempotent on
    input that already has this form."""
    if isinstance(x, bool) or x is None or isinstance(x, str):
        return x
    if isinstance(x, (int, float)):
        try:
            f = float(x)
        except OverflowError:
            raise NotConvertible(f"json: unsupported value: {x}")
        if math.isinf(f) or math.isnan(f):
            raise NotConvertible(f"json: unsupported value: {f}")
        if f.is_integer() and abs(f) < 1e21:
            return int(decimal.Decimal(repr(f)))
        return f
    if isinstance(x, list):
        return [go_numbers(v) for v in x]
    if isinstance(x, dict):
        return {k: go_numbers(v) for k, v in x.items()}
    return x


# --------------------------------------------------------------------------
# The verdict
# --------------------------------------------------------------------------


# Subtrees the master keeps as free-form JSON (interface{} / raw maps): their
# numbers are never squeezed into a Go integer type.
_FREE_FORM = {("data",), ("environment", "pod_spec"), ("internal",)}
INT64 = (-(2**63), 2**63 - 1)
UINT64_MAX = 2**64 - 1


def _width_errors(cfg: Dict) -> List[str]:
    """Integers the master's json.Unmarshal into its Go structs cannot hold.

    An approximation: experiment_seed is a uint32, lengths are uint64;
    hyperparameter values are interface{} except the bounds and count of
    `int` ranges (`double`/`log` bounds and `base` are float64); every other
    integer field is int or int16 (log_retention_days, which the schema
    already bounds)."""
    out: List[str] = []

    def hyperparameter_int(path: Tuple[Any, ...]) -> bool:
        """Whether an integer under `hyperparameters` lands in a Go int: the
        `count` of a range, and the bounds of an `int` range. Plain values,
        `val`/`vals` and nested values are interface{}; `double` and `log`
        bounds and `base` are float64."""
        if path[-1] == "count":
            return True
        if path[-1] not in ("minval", "maxval"):
            return False
        node: Any = cfg
        for step in path[:-1]:
            node = node.get(step) if isinstance(node, dict) else None
        return isinstance(node, dict) and node.get("type") == "int"

    def walk(x: Any, path: Tuple[Any, ...]) -> None:
        if path[:2] in _FREE_FORM or path[:1] in _FREE_FORM:
            return
        if len(path) >= 3 and path[0] == "hyperparameters" and path[-1] in ("val", "vals"):
            return
        if (
            path
            and path[0] == "hyperparameters"
            and isinstance(x, int)
            and not isinstance(x, bool)
            and not hyperparameter_int(path)
        ):
            return
        if isinstance(x, dict):
            for k, v in x.items():
                walk(v, path + (k,))
        elif isinstance(x, list):
            for i, v in enumerate(x):
                if len(path) >= 1 and path[-1] == "vals":
                    continue
                walk(v, path + (i,))
        elif isinstance(x, float) and path[:2] == ("environment", "proxy_ports") and path[-1] == "proxy_port":
            # A `number` to the schema, an int to the Go struct: json.Unmarshal
            # refuses a literal with a fraction or an exponent (`1e+21`).
            out.append(f"<config>{_path_string(path)}: cannot unmarshal number {x!r} into an int")
        elif isinstance(x, int) and not isinstance(x, bool):
            where = "<config>" + _path_string(path)
            # Fields the Go structs hold as float64 (the schema's `number`
            # fields other than `proxy_port`, which is an int).
            if path and path[-1] in ("divisor", "weight"):
                return
            if path == ("reproducibility", "experiment_seed"):
                if not 0 <= x <= 2**32 - 1:
                    out.append(f"{where}: {x} does not fit a uint32")
            elif path and path[-1] in ("records", "batches", "epochs"):
                if not 0 <= x <= UINT64_MAX:
                    out.append(f"{where}: {x} does not fit a uint64")
            elif not INT64[0] <= x <= INT64[1]:
                out.append(f"{where}: {x} does not fit an int")

    walk(cfg, ())
    return out


def judge(oracle: Oracle, cfg: Any, cluster_storage: Dict) -> Dict[str, Any]:
    """Every stage of `det experiment create` that a config alone decides, in order."""
    result: Dict[str, Any] = {
        "sanity": [],
        "completeness": [],
        "submit_completeness": [],
        "cluster_dependent": [],
    }
    reasons: List[str] = []
    cluster_dependent: List[str] = result["cluster_dependent"]

    # CLI (_parse_config_text_or_exit): the loaded YAML must be a non-empty mapping.
    if not isinstance(cfg, dict) or not cfg:
        reasons.append("cli: invalid experiment config file (not a non-empty mapping)")

    # expconf.ParseAnyExperimentConfigJSON: the version probe unmarshals into a
    # struct {Version int} (field names match case-insensitively); anything but
    # an object or null fails, and only version 0 is known.
    if cfg is not None and not isinstance(cfg, dict):
        reasons.append(f"parse: cannot unmarshal {_json_type(cfg)} into the version probe")
    elif isinstance(cfg, dict):
        for key, ver in cfg.items():
            if key.lower() != "version":
                continue
            if ver is not None and not (isinstance(ver, int) and not isinstance(ver, bool)):
                reasons.append(f"parse: version {json.dumps(ver)} is not an int")
            elif isinstance(ver, int) and ver != 0:
                reasons.append(f"parse: invalid version: {ver}")

    result["sanity"] = oracle.errors(cfg, complete=False)
    result["completeness"] = oracle.errors(cfg, complete=True)
    reasons.extend("sanity: " + e for e in result["sanity"])
    if reasons or not isinstance(cfg, dict):
        result.update(verdict="reject", reasons=reasons)
        return result

    reasons.extend("unmarshal: " + e for e in _width_errors(cfg))

    resources = cfg.get("resources")
    if _is_obj(resources) and resources.get("slots") is not None:
        reasons.append('submit: <config>.resources: additionalProperties "slots" not allowed')
    # getCreateExperimentsProject (no --project_id given): both or neither.
    workspace, project = cfg.get("workspace") or "", cfg.get("project") or ""
    if (workspace == "") != (project == ""):
        reasons.append(
            "submit: workspace and project must both be included in config if one is provided"
        )
    elif workspace:
        cluster_dependent.append(f"project: workspace/project {workspace}/{project} must exist")
    resources = cfg.get("resources") if _is_obj(cfg.get("resources")) else {}
    if resources.get("resource_pool"):
        cluster_dependent.append(f"resources: resource pool {resources['resource_pool']!r} must exist")
    if cfg.get("entrypoint") is None:
        reasons.append("submit: managed experiments require entrypoint")

    merged = submitted_config(cfg, oracle.store, cluster_storage)
    result["submit_completeness"] = oracle.errors(merged, complete=True)
    reasons.extend("completeness: " + e for e in result["submit_completeness"])

    searcher = merged.get("searcher")
    if _is_obj(searcher):
        name = searcher.get("name")
        if name in EOL_SEARCHERS:
            reasons.append(
                f"searcher: the '{name}' searcher has been removed and is not valid for new experiments"
            )
        elif name in TIME_SEARCHERS and (
            searcher.get("max_time") is None or searcher.get("time_metric") is None
        ):
            reasons.append(
                f"searcher: the `{name}` searcher requires `max_time` and `time_metric` to be set"
            )

    result.update(verdict="reject" if reasons else "accept", reasons=reasons)
    return result


def main(argv: Optional[List[str]] = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--schemas", required=True, help="directory of expconf v0 *.json schemas")
    p.add_argument(
        "--cluster-checkpoint-storage",
        default=None,
        help="JSON of the cluster's checkpoint_storage (default: the packaged master.yaml's)",
    )
    p.add_argument(
        "--exact-numbers",
        action="store_true",
        help="take numbers as given instead of passing them through float64 as the master does",
    )
    p.add_argument(
        "--python-semantics",
        action="store_true",
        help="use the 0.17.15 Python keyword code unadapted (no Go adapters)",
    )
    args = p.parse_args(argv)

    store = load_schema_store(args.schemas)
    oracle = Oracle(store, go_semantics=not args.python_semantics)
    cluster = STOCK_CHECKPOINT_STORAGE
    if args.cluster_checkpoint_storage:
        cluster = json.loads(args.cluster_checkpoint_storage)

    out = sys.stdout
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            cfg = json.loads(line)
            if not args.exact_numbers:
                cfg = go_numbers(cfg)
        except ValueError as e:
            res: Dict[str, Any] = {
                "cluster_dependent": [],
                "sanity": [],
                "completeness": [],
                "submit_completeness": [],
                "verdict": "reject",
                "reasons": [f"parse: {e}"],
            }
        else:
            res = judge(oracle, cfg, cluster)
        out.write(json.dumps(res, sort_keys=True) + "\n")
        out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
