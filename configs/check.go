package configs

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// The settings are checked against the shape of Config before viper sees
// them: viper's merge silently drops a value whose kind differs from the
// default's (a number where a section belongs), and mapstructure's messages
// name neither the file nor the line. Every problem found here names where
// the value came from (FILE:LINE, the environment variable or the flag),
// the key, the value and what the key accepts.

// durationType is checked by syntax, not by its int64 kind.
var durationType = reflect.TypeFor[time.Duration]()

// isSection reports whether a value of type t is a section of keys.
func isSection(t reflect.Type) bool {
	return t.Kind() == reflect.Struct && t != durationType
}

// checkNode reports every place where n, the value of key read from src,
// does not fit t. src is a file name (a line number is added) or a
// variable or flag name.
func checkNode(src, key string, n *yaml.Node, t reflect.Type) []error {
	errs, _ := prune(src, key, n, t, nil)
	return errs
}

// prune is checkNode that also takes out of n every value that does not
// fit, so that what is left decodes and the rest of the settings can be
// validated: an unknown key, and a value of the wrong kind, which keeps
// its default. A list with a bad item goes whole, as a part of it would
// pass for the setting. fits is false if n itself must go; the key of
// each value taken out is added to dropped, if not nil.
func prune(src, key string, n *yaml.Node, t reflect.Type, dropped map[string]bool) (errs []error, fits bool) {
	at := src
	if n.Line > 0 {
		at = fmt.Sprintf("%s:%d", src, n.Line)
	}
	bad := func(want string) ([]error, bool) {
		if dropped != nil {
			dropped[key] = true
		}
		return []error{fmt.Errorf("%s: %s = %s: %s", at, key, shown(n), want)}, false
	}
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	switch {
	case isSection(t):
		if n.Kind != yaml.MappingNode {
			return bad("must be a section with the keys " + strings.Join(fieldKeys(t), ", "))
		}
		kept := n.Content[:0:0]
		seen := make(map[string]int)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if err := repeated(src, key+".", k, seen); err != nil {
				errs = append(errs, err)
				continue
			}
			ft, ok := fieldType(t, k.Value)
			if !ok {
				errs = append(errs, fmt.Errorf("%s:%d: %s.%s: no such setting; %s has %s",
					src, k.Line, key, k.Value, key, strings.Join(fieldKeys(t), ", ")))
				continue
			}
			verrs, ok := prune(src, key+"."+strings.ToLower(k.Value), v, ft, dropped)
			errs = append(errs, verrs...)
			if ok {
				kept = append(kept, k, v)
			}
		}
		n.Content = kept
		return errs, true
	case t.Kind() == reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			return bad("must be a list")
		}
		for i, c := range n.Content {
			cerrs, _ := prune(src, fmt.Sprintf("%s[%d]", key, i), c, t.Elem(), nil)
			errs = append(errs, cerrs...)
		}
		if len(errs) > 0 {
			if dropped != nil {
				dropped[key] = true
			}
			return errs, false
		}
		return nil, true
	}
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		return bad("must be " + scalarWant(t))
	}
	if fits, outOfRange := scalarFits(n.Value, t); !fits {
		if outOfRange {
			return bad("must be " + rangeWant(t))
		}
		return bad("must be " + scalarWant(t))
	}
	return nil, true
}

// durationSyntax is the form time.ParseDuration reads; a value of this
// form it refuses is too long for a time.Duration.
var durationSyntax = regexp.MustCompile(`^[-+]?([0-9]*(\.[0-9]*)?(ns|us|µs|μs|ms|s|m|h))+$`)

// scalarFits reports whether s decodes into a value of type t and, if it
// does not, whether s has the form of one but is out of t's range.
func scalarFits(s string, t reflect.Type) (fits, outOfRange bool) {
	var err error
	switch {
	case t == durationType:
		if _, err = time.ParseDuration(s); err != nil && durationSyntax.MatchString(s) && strings.ContainsAny(s, "0123456789") {
			return false, true
		}
	case t.Kind() == reflect.Bool:
		_, err = strconv.ParseBool(s)
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Int64:
		_, err = strconv.ParseInt(s, 10, t.Bits())
	case t.Kind() >= reflect.Uint && t.Kind() <= reflect.Uint64:
		_, err = strconv.ParseUint(s, 10, t.Bits())
	case t.Kind() == reflect.Float32 || t.Kind() == reflect.Float64:
		// NaN and ±Inf parse, but no setting means them, and NaN passes
		// every range check written as v < lo || v > hi.
		var f float64
		if f, err = strconv.ParseFloat(s, t.Bits()); err == nil && (math.IsNaN(f) || math.IsInf(f, 0)) {
			return false, false
		}
	}
	return err == nil, errors.Is(err, strconv.ErrRange)
}

// rangeWant says what range a value of type t is held to, for a value of
// the right form beyond it.
func rangeWant(t reflect.Type) string {
	switch {
	case t == durationType:
		return fmt.Sprintf("a duration of at most %s", time.Duration(math.MaxInt64))
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Int64:
		lo := int64(-1) << (t.Bits() - 1)
		return fmt.Sprintf("a whole number from %d to %d", lo, ^lo)
	case t.Kind() >= reflect.Uint && t.Kind() <= reflect.Uint64:
		return fmt.Sprintf("a whole number from 0 to %d", ^uint64(0)>>(64-t.Bits()))
	}
	return "a finite number" // a float beyond ±1.8e308
}

// scalarWant says what a value of type t looks like.
func scalarWant(t reflect.Type) string {
	switch {
	case t == durationType:
		return "a duration such as 500ms, 2s or 1h30m"
	case t.Kind() == reflect.Bool:
		return "true or false"
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Int64:
		return "a whole number"
	case t.Kind() >= reflect.Uint && t.Kind() <= reflect.Uint64:
		return "a whole number >= 0"
	case t.Kind() == reflect.Float32 || t.Kind() == reflect.Float64:
		return "a finite number"
	}
	return "a single value"
}

// shown renders a node for an error message: a scalar as written, a
// section or list by its kind.
func shown(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a section"
	case yaml.SequenceNode:
		return "a list"
	}
	if n.Tag == "!!null" {
		return "nothing"
	}
	if n.Tag == "!!str" {
		return strconv.Quote(n.Value)
	}
	return n.Value
}

// fieldKeys are the keys a section of type t accepts.
func fieldKeys(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		if tag := t.Field(i).Tag.Get("mapstructure"); tag != "" && tag != "-" {
			out = append(out, tag)
		}
	}
	return out
}

// fieldType is the type of the field of t whose key is name; keys match
// regardless of case, as viper's do.
func fieldType(t reflect.Type, name string) (reflect.Type, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		if tag := f.Tag.Get("mapstructure"); tag != "" && tag != "-" && strings.EqualFold(tag, name) {
			return f.Type, true
		}
	}
	return nil, false
}

// keyType is the type of the setting at a dotted key path.
func keyType(key string) (reflect.Type, bool) {
	t := reflect.TypeFor[Config]()
	for part := range strings.SplitSeq(key, ".") {
		if !isSection(t) {
			return nil, false
		}
		ft, ok := fieldType(t, part)
		if !ok {
			return nil, false
		}
		t = ft
	}
	return t, true
}

// parseFile parses a configuration file into its document node, giving a
// syntax error the file and the line it is on.
func parseFile(name string, data []byte) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		line := badLine(data)
		text := strings.Split(string(data), "\n")[line-1]
		if indent := text[:len(text)-len(strings.TrimLeft(text, " \t"))]; strings.Contains(indent, "\t") {
			return nil, fmt.Errorf("%s:%d: not valid YAML: a tab in the indentation (YAML indents with spaces only)", name, line)
		}
		return nil, fmt.Errorf("%s:%d: not valid YAML: %s", name, line, yamlProblem(err))
	}
	// A file is one mapping of sections: a bare value or a list would
	// fail later in the loader without a line, and a second document
	// (after ---) would be ignored, its settings with it.
	if len(doc.Content) > 0 && doc.Content[0].Kind != yaml.MappingNode {
		root := doc.Content[0]
		return nil, fmt.Errorf("%s:%d: must be a mapping of sections (crawler:, log:, ...) at the top, not a %s", name, root.Line, kindName(root.Kind))
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var first, second yaml.Node
	if dec.Decode(&first) == nil && dec.Decode(&second) == nil && !emptyDocument(&second) {
		return nil, fmt.Errorf("%s:%d: a second YAML document (after ---): a configuration file holds one", name, second.Line)
	}
	return &doc, nil
}

// emptyDocument reports whether doc holds nothing: a "---" that ends a
// file, say.
func emptyDocument(doc *yaml.Node) bool {
	return len(doc.Content) == 0 || len(doc.Content) == 1 && doc.Content[0].Kind == yaml.ScalarNode && doc.Content[0].Tag == "!!null"
}

// kindName names a YAML node's kind as a message speaks of it.
func kindName(k yaml.Kind) string {
	switch k {
	case yaml.SequenceNode:
		return "list"
	case yaml.ScalarNode:
		return "single value"
	case yaml.AliasNode:
		return "alias"
	}
	return "mapping"
}

// badLine is the first line at which data stops being valid YAML. yaml
// reports the line where the enclosing block or flow started, counted
// from 0, which sends a reader to the wrong line.
func badLine(data []byte) int {
	lines := strings.SplitAfter(string(data), "\n")
	for k := 1; k <= len(lines); k++ {
		var n yaml.Node
		if yaml.Unmarshal([]byte(strings.Join(lines[:k], "")), &n) != nil {
			return k
		}
	}
	return len(lines)
}

// yamlProblem is yaml's message without its prefix and its line number.
func yamlProblem(err error) string {
	var te *yaml.TypeError
	if errors.As(err, &te) {
		return strings.Join(te.Errors, "; ")
	}
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if num, text, ok := strings.Cut(rest, ": "); ok {
			if _, err := strconv.Atoi(num); err == nil {
				return text
			}
		}
	}
	return msg
}

// checkFile checks a parsed configuration file against Config, takes out
// of doc every value that does not fit (prune) and records where each key
// it sets was written. It returns the problems found; the key of each
// value taken out is added to dropped.
func checkFile(name string, doc *yaml.Node, origin map[string]string, dropped map[string]bool) []error {
	if len(doc.Content) == 0 {
		return nil // an empty file sets nothing
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		doc.Content = nil
		return []error{fmt.Errorf("%s:%d: the file must be a mapping of sections (log, crawler, ...), not %s", name, root.Line, shown(root))}
	}
	t := reflect.TypeFor[Config]()
	var errs []error
	kept := root.Content[:0:0]
	seen := make(map[string]int)
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if err := repeated(name, "", k, seen); err != nil {
			errs = append(errs, err)
			continue
		}
		ft, ok := fieldType(t, k.Value)
		if !ok {
			errs = append(errs, fmt.Errorf("%s:%d: %s: no such section; the sections are %s",
				name, k.Line, k.Value, strings.Join(fieldKeys(t), ", ")))
			continue
		}
		key := strings.ToLower(k.Value)
		verrs, ok := prune(name, key, v, ft, dropped)
		errs = append(errs, verrs...)
		if ok {
			kept = append(kept, k, v)
			recordOrigins(name, key, v, origin)
		}
	}
	root.Content = kept
	return errs
}

// repeated refuses k, a key of the section at prefix in file src, when
// seen has it already (keys match regardless of case, as viper's do); it
// records k's line otherwise. A YAML parser would take the last of two,
// silently, or refuse the file without saying which setting.
func repeated(src, prefix string, k *yaml.Node, seen map[string]int) error {
	lower := strings.ToLower(k.Value)
	if first, ok := seen[lower]; ok {
		return fmt.Errorf("%s:%d: %s%s: given a second time (first at line %d); give each key once", src, k.Line, prefix, lower, first)
	}
	seen[lower] = k.Line
	return nil
}

// unaliased is a copy of n with each alias replaced by what it names, for
// writing n out again after prune: the anchor an alias names may have
// been taken out.
func unaliased(n *yaml.Node) *yaml.Node {
	if n.Kind == yaml.AliasNode {
		return unaliased(n.Alias)
	}
	c := *n
	c.Anchor = ""
	c.Content = make([]*yaml.Node, len(n.Content))
	for i, x := range n.Content {
		c.Content[i] = unaliased(x)
	}
	return &c
}

// recordOrigins notes FILE:LINE for every key under n.
func recordOrigins(name, key string, n *yaml.Node, origin map[string]string) {
	origin[key] = fmt.Sprintf("%s:%d", name, n.Line)
	if n.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		recordOrigins(name, key+"."+strings.ToLower(n.Content[i].Value), n.Content[i+1], origin)
	}
}

// valueNode reads a setting given as one string (an environment variable
// or a flag) as a YAML node of type t. Which syntax a list takes depends
// on its items alone, never on how the value looks: a list of single
// values is comma-separated (a,b,c), each item as written, so a regular
// expression such as [/]calendar/ stays one item; a list of sections,
// which has no comma-separated form, is a YAML flow list
// ([{host: a, per_host: 2}]).
func valueNode(s string, t reflect.Type) (*yaml.Node, error) {
	if t.Kind() != reflect.Slice {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}, nil
	}
	n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	if strings.TrimSpace(s) == "" {
		return n, nil
	}
	if isSection(t.Elem()) {
		return flowList(s)
	}
	for item := range strings.SplitSeq(s, ",") {
		n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: strings.TrimSpace(item)})
	}
	return n, nil
}

// flowList parses s as one YAML value and nothing more: yaml stops at the
// end of the first value and drops what follows ([a] b reads as [a]), so
// a second decode must find the end of the input.
func flowList(s string) (*yaml.Node, error) {
	d := yaml.NewDecoder(strings.NewReader(s))
	var doc, rest yaml.Node
	if err := d.Decode(&doc); err != nil || len(doc.Content) == 0 || !errors.Is(d.Decode(&rest), io.EOF) {
		return nil, fmt.Errorf("%q: not a YAML list", s)
	}
	n := doc.Content[0]
	clearLines(n)
	return n, nil
}

// clearLines drops line numbers, which mean nothing in a one-line value.
func clearLines(n *yaml.Node) {
	n.Line = 0
	for _, c := range n.Content {
		clearLines(c)
	}
}

// setting reads one string-valued setting for key from src, checks it
// and returns the value viper should hold.
func setting(src, key, s string) (any, error) {
	t, ok := keyType(key)
	if !ok {
		return nil, fmt.Errorf("%s: %s names no setting", src, key)
	}
	n, err := valueNode(s, t)
	if err != nil {
		return nil, fmt.Errorf("%s: %s = %w", src, key, err)
	}
	return checked(src, key, s, n, t)
}

// listSetting is setting for a list given item by item (a repeated flag),
// so an item may hold a comma. Each item is taken as written: one that
// starts with [ is a regular expression's bracket, not a YAML list.
func listSetting(src, key string, items []string) (any, error) {
	t, ok := keyType(key)
	if !ok {
		return nil, fmt.Errorf("%s: %s names no setting", src, key)
	}
	if t.Kind() != reflect.Slice {
		return setting(src, key, strings.Join(items, ","))
	}
	n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	for _, it := range items {
		n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: it})
	}
	return checked(src, key, strings.Join(items, ","), n, t)
}

// checked checks n, read from s, against t and returns viper's value.
func checked(src, key, s string, n *yaml.Node, t reflect.Type) (any, error) {
	if errs := checkNode(src, key, n, t); len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if t.Kind() != reflect.Slice {
		return s, nil
	}
	var v []any
	if err := n.Decode(&v); err != nil {
		return nil, fmt.Errorf("%s: %s = %q: %w", src, key, s, err)
	}
	return v, nil
}

// withOrigins prefixes each line of a validation error with where the key
// it names was set (FILE:LINE, variable or flag), so a user knows what to
// edit. Lines about keys left at their default are unchanged.
func withOrigins(err error, origin map[string]string) error {
	if len(origin) == 0 {
		return err
	}
	keys := make([]string, 0, len(origin))
	for k := range origin {
		keys = append(keys, k)
	}
	// Longest first, so crawler.politeness.min_delay wins over crawler.
	slices.SortFunc(keys, func(a, b string) int { return len(b) - len(a) })
	lines := strings.Split(err.Error(), "\n")
	for i, line := range lines {
		for _, k := range keys {
			rest, ok := strings.CutPrefix(line, k)
			if ok && rest != "" && strings.ContainsRune(" [:=", rune(rest[0])) {
				lines[i] = origin[k] + ": " + line
				break
			}
		}
	}
	return errors.New(strings.Join(lines, "\n"))
}

// withoutKeys drops the lines of a validation error that name one of keys,
// or a key under it: those values were refused and left at their default.
// A key is named at the start of a line, or, if it has a dot, anywhere in
// it (a limit taken from another key). It returns nil if no line is left.
func withoutKeys(err error, keys map[string]bool) error {
	if len(keys) == 0 {
		return err
	}
	var kept []string
	for line := range strings.SplitSeq(err.Error(), "\n") {
		if !namesAny(line, keys) {
			kept = append(kept, line)
		}
	}
	if len(kept) == 0 {
		return nil
	}
	return errors.New(strings.Join(kept, "\n"))
}

// namesAny reports whether line names one of keys, as withoutKeys means.
func namesAny(line string, keys map[string]bool) bool {
	isKeyByte := func(c byte) bool {
		return c == '_' || c == '.' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
	}
	for k := range keys {
		for i := 0; ; {
			j := strings.Index(line[i:], k)
			if j < 0 {
				break
			}
			start, end := i+j, i+j+len(k)
			i = start + 1
			if start > 0 && (isKeyByte(line[start-1]) || !strings.Contains(k, ".")) {
				continue
			}
			// A key under k follows with a dot, an item with a bracket.
			if end < len(line) && line[end] != '.' && isKeyByte(line[end]) {
				continue
			}
			return true
		}
	}
	return false
}
