def nan: _nan;
def infinite: _infinite;
def isnan: _isnan;
def isinfinite: _isinfinite;
def isfinite: type == "number" and (isinfinite | not);
def isnormal: _isnormal;
def finites: select(isfinite);
def normals: select(isnormal);
def logb: if . == 0 then -infinite elif isinfinite then infinite elif isnan then . else ilogb | . + 0 end;
def significand: if isinfinite or isnan then . elif . == 0 then 0 else scalbln(.; ilogb | -1 * .) end;
def type: _type;
def keys: _keys;
def tonumber: _tonumber;
def input: _input;
def debug: _debug;
def debug(msgs): (msgs | _debug | empty), .;
def stderr: _stderr;
def halt_error($code): _halt_error($code);
def halt_error: _halt_error(5);
def env: $ENV;
def last(f): _last(f);
def limit($n; f): if $n > 0 then _limit($n; f) elif $n == 0 then empty
  else error("limit doesn't support negative count") end;
def skip($n; f): if $n > 0 then _skip($n; f) elif $n == 0 then f
  else error("skip doesn't support negative count") end;
def nth($n; f): if $n < 0 then error("nth doesn't support negative indices") else first(skip($n; f)) end;
def split($sep): _split1($sep);
def getpath($p):
  if ($p | type) == "array" and ($p | length) > 10000 then error("Path too deep")
  else reduce $p[] as $k (.; .[$k]) end;
def setpath($p; $v): _setpath($p; $v);
def delpaths($ps): _delpaths($ps);
def del(f): delpaths([path(f)]);
def to_entries: [keys_unsorted[] as $k | {key: $k, value: .[$k]}];
def from_entries: reduce .[] as $x ({};
  . + { ($x | .key // .Key // .name // .Name): ($x | if has("value") then .value else .Value end) });
def with_entries(f): to_entries | map(f) | from_entries;
def paths: path(_recurse_all) | select(length > 0);
def paths(node_filter): path(_recurse_all | select(node_filter)) | select(length > 0);
def leaf_paths: paths(scalars);
def join($x): reduce .[] as $i (null;
  (if . == null then "" else . + $x end) +
  ($i | if type == "boolean" or type == "number" then tojson else . // "" end)) // "";
def flatten($x): if $x < 0 then error("flatten depth must not be negative") else _flatten($x) end;
def flatten: _flatten(-1);
def walk(f): _walk(f);
def recurse: _recurse_all;
def combinations: if length == 0 then [] else .[0][] as $x | (.[1:] | combinations) as $y | [$x] + $y end;
def combinations(n): . as $dot | [range(n) | $dot] | combinations;
def transpose: [range(0; map(length) | max // 0) as $i | [.[][$i]]];
def indices($i): if type == "array" and ($i | type) == "array" then .[$i]
  elif type == "array" then .[[$i]]
  elif type == "string" and ($i | type) == "string" then _strindices($i)
  else .[$i] end;
def index($i): indices($i) | .[0];
def rindex($i): indices($i) | .[-1:][0];
def sort_by(f): _sort_by_impl(map([f]));
def group_by(f): _group_by_impl(map([f]));
def unique: group_by(.) | map(.[0]);
def unique_by(f): group_by(f) | map(.[0]);
def min_by(f): _min_by_impl(map([f]));
def max_by(f): _max_by_impl(map([f]));
def min: min_by(.);
def max: max_by(.);
def add: reduce .[] as $x (null; . + $x);
def reverse: [.[length - 1 - range(0; length)]];
def match(re; mode): _match_impl(re; mode; false) | .[];
def match($val): ($val | type) as $vt | if $vt == "string" then match($val; null)
  elif $vt == "array" and ($val | length) > 1 then match($val[0]; $val[1])
  elif $vt == "array" and ($val | length) > 0 then match($val[0]; null)
  else error($vt + " not a string or array") end;
def test(re; mode): _match_impl(re; mode; true);
def test($val): ($val | type) as $vt | if $vt == "string" then test($val; null)
  elif $vt == "array" and ($val | length) > 1 then test($val[0]; $val[1])
  elif $vt == "array" and ($val | length) > 0 then test($val[0]; null)
  else error($vt + " not a string or array") end;
def capture(re; mods): match(re; mods) | reduce (.captures | .[] | select(.name != null) | {(.name): .string}) as $pair ({}; . + $pair);
def capture($val): ($val | type) as $vt | if $vt == "string" then capture($val; null)
  elif $vt == "array" and ($val | length) > 1 then capture($val[0]; $val[1])
  elif $vt == "array" and ($val | length) > 0 then capture($val[0]; null)
  else error($vt + " not a string or array") end;
def scan($re; $flags): match($re; "g" + $flags)
  | if (.captures | length > 0) then [.captures | .[] | .string] else .string end;
def scan($re): scan($re; null);
def _nwise($n): def n: if length <= $n then . else .[0:$n], (.[$n:] | n) end; n;
def _nwise(a; $n): a | _nwise($n);
def splits($re; flags): . as $s
  | [match($re; "g" + flags) | (.offset, .offset + .length)]
  | [0] + . + [$s | length]
  | _nwise(2)
  | $s[.[0]:.[1]];
def splits($re): splits($re; null);
def split($re; flags): [splits($re; flags)];
def sub($re; s; $flags): . as $in
  | (reduce match($re; $flags) as $edit ({result: [], previous: 0};
      $in[.previous: ($edit | .offset)] as $gap
      | [reduce ($edit | .captures | .[] | select(.name != null) | {(.name): .string}) as $pair
          ({}; . + $pair) | s] as $inserts
      | reduce range(0; $inserts | length) as $ix (.; .result[$ix] += $gap + $inserts[$ix])
      | .previous = ($edit | .offset + .length))
    | .result[] + $in[.previous:])
  // $in;
def sub($re; s): sub($re; s; "");
def gsub($re; s; flags): sub($re; s; flags + "g");
def gsub($re; s): sub($re; s; "g");
def tostream: path(def r: (.[]? | r), .; r) as $p | getpath($p) | reduce path(.[]?) as $q ([$p, .]; [$p + $q]);
def fromstream(i): {x: null, e: false} as $init
  | foreach i as $i ($init;
      if .e then $init else . end
      | if $i | length == 2
        then setpath(["e"]; $i[0] | length == 0) | setpath(["x"] + $i[0]; $i[1])
        else setpath(["e"]; $i[0] | length == 1) end;
      if .e then .x else empty end);
def truncate_stream(stream): . as $n | null | stream | . as $input
  | if (.[0] | length) > $n then setpath([0]; $input[0][$n:]) else empty end;
def pick(pathexps): . as $in | reduce path(pathexps) as $a (null; setpath($a; $in | getpath($a)));
def todateiso8601: strftime("%Y-%m-%dT%H:%M:%SZ");
def fromdateiso8601: strptime("%Y-%m-%dT%H:%M:%SZ") | mktime;
def todate: todateiso8601;
def fromdate: fromdateiso8601;
def @text: tostring;
def @json: tojson;
def @csv: _fmt_csv;
def @tsv: _fmt_tsv;
def @sh: _fmt_sh;
def @html: _fmt_html;
def @uri: _fmt_uri;
def @urid: _fmt_urid;
def @base64: _fmt_base64;
def @base64d: _fmt_base64d;
def @base32: _fmt_base32;
def @base32d: _fmt_base32d;
def INDEX(stream; idx_expr): reduce stream as $row ({}; .[$row | idx_expr | tostring] = $row);
def INDEX(idx_expr): INDEX(.[]; idx_expr);
def JOIN($idx; idx_expr): [.[] | [., $idx[idx_expr]]];
def JOIN($idx; stream; idx_expr): stream | [., $idx[idx_expr]];
def JOIN($idx; stream; idx_expr; join_expr): stream | [., $idx[idx_expr]] | join_expr;
def IN(s): any(s == .; .);
def IN(src; s): any(src == s; .);
def in(xs): . as $x | xs | has($x);
def inside(xs): . as $x | xs | contains($x);
def toarray: if type == "array" then . else [.] end;
def trimstr($x): ltrimstr($x) | rtrimstr($x);
def have_literal_numbers: true;
def have_decnum: true;
def builtins: _builtins;
