package web

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// jsonWalk reads a JSON document token by token, keeping the path of the
// value it stands at and, when it knows the Go type the document decodes
// into, that value's type. It names what encoding/json's errors leave
// out: the array indices of a path, a member given twice, and the members
// an object of a struct type takes.
type jsonWalk struct {
	dec     *json.Decoder
	root    reflect.Type // nil: not known
	stack   []jsonFrame
	pending json.Token // the value next returned last, not yet entered
}

// jsonFrame is an array or an object the walk is in.
type jsonFrame struct {
	array   bool
	t       reflect.Type // the array's or object's type; nil: not known
	index   int          // the next element's, in an array
	key     string       // the current member's, in an object
	wantKey bool         // in an object, before a member's key
	keys    []string     // the members' names so far, in an object
}

// jsonMemberError is a member of an object that the walk refuses:
// given twice (encoding/json keeps the last), or not one of those its
// struct type takes (allowed).
type jsonMemberError struct {
	path    string // the member's, with indices
	twice   bool
	allowed []string
}

func (e *jsonMemberError) Error() string {
	switch {
	case e.twice:
		return fmt.Sprintf("member %s given twice", e.path)
	case len(e.allowed) == 0:
		return fmt.Sprintf("unknown member %s: its object takes none", e.path)
	}
	return fmt.Sprintf("unknown member %s: its object takes %s", e.path, strings.Join(e.allowed, ", "))
}

// newJSONWalk walks data, which decodes into a value of type t (nil: not
// known).
func newJSONWalk(data []byte, t reflect.Type) *jsonWalk {
	dec := json.NewDecoder(bytes.NewReader(data))
	// Numbers as written: as float64s, one past its range (1e400) would
	// end the walk before the value a type error is about.
	dec.UseNumber()
	return &jsonWalk{dec: dec, root: deref(t)}
}

// next returns the next token that starts a value (or is one), with the
// walk standing at its path; an error at the end of data, at a syntax
// error, or at a member refused (*jsonMemberError).
func (w *jsonWalk) next() (json.Token, error) {
	if w.pending != nil {
		w.enter(w.pending)
		w.pending = nil
	}
	for {
		tok, err := w.dec.Token()
		if err != nil {
			return nil, err
		}
		if n := len(w.stack); n > 0 && w.stack[n-1].wantKey {
			if key, ok := tok.(string); ok {
				if err := w.member(&w.stack[n-1], key); err != nil {
					return nil, err
				}
				continue
			}
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			w.stack = w.stack[:len(w.stack)-1]
			w.valueDone()
			continue
		}
		w.pending = tok
		return tok, nil
	}
}

// member takes key, the name of the next member of object f. As
// encoding/json does, it matches names to a struct's fields in any case
// (a map's keys, or those of an object of unknown type, exactly).
func (w *jsonWalk) member(f *jsonFrame, key string) error {
	f.key, f.wantKey = key, false
	isStruct := f.t != nil && f.t.Kind() == reflect.Struct
	same := func(k string) bool { return k == key || isStruct && strings.EqualFold(k, key) }
	if slices.ContainsFunc(f.keys, same) {
		return &jsonMemberError{path: w.path(true), twice: true}
	}
	f.keys = append(f.keys, key)
	if isStruct {
		if _, ok := jsonField(f.t, key); !ok {
			return &jsonMemberError{path: w.path(true), allowed: jsonFieldNames(f.t)}
		}
	}
	return nil
}

// enter moves into tok, the value the walk stands at: into an array or an
// object, or past a scalar.
func (w *jsonWalk) enter(tok json.Token) {
	switch tok {
	case json.Delim('{'):
		w.stack = append(w.stack, jsonFrame{t: w.valueType(), wantKey: true})
	case json.Delim('['):
		w.stack = append(w.stack, jsonFrame{array: true, t: w.valueType()})
	default:
		w.valueDone()
	}
}

// valueDone moves past a value of the innermost array or object.
func (w *jsonWalk) valueDone() {
	if n := len(w.stack); n > 0 {
		w.stack[n-1].index++
		w.stack[n-1].wantKey = !w.stack[n-1].array
	}
}

// valueType is the type of the value the walk stands at, nil if not known.
func (w *jsonWalk) valueType() reflect.Type {
	n := len(w.stack)
	if n == 0 {
		return w.root
	}
	f := w.stack[n-1]
	switch {
	case f.t == nil:
		return nil
	case f.array && (f.t.Kind() == reflect.Slice || f.t.Kind() == reflect.Array):
		return deref(f.t.Elem())
	case !f.array && f.t.Kind() == reflect.Struct:
		if sf, ok := jsonField(f.t, f.key); ok {
			return deref(sf.Type)
		}
	case !f.array && f.t.Kind() == reflect.Map:
		return deref(f.t.Elem())
	}
	return nil
}

// path is the walk's place: the members' names joined by ".", and, with
// withIndex, each element's index ("targets[1].bid"; else "targets.bid",
// as encoding/json names a field).
func (w *jsonWalk) path(withIndex bool) string {
	var b strings.Builder
	for _, f := range w.stack {
		switch {
		case f.array && withIndex:
			b.WriteString("[" + strconv.Itoa(f.index) + "]")
		case f.array:
		case b.Len() == 0:
			b.WriteString(f.key)
		default:
			b.WriteString("." + f.key)
		}
	}
	return b.String()
}

// deref is t without its pointers; nil stays nil.
func deref(t reflect.Type) reflect.Type {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// jsonField is the field of struct t that encoding/json decodes the member
// name into.
func jsonField(t reflect.Type, name string) (reflect.StructField, bool) {
	for _, f := range reflect.VisibleFields(t) {
		if n, ok := jsonName(f); ok && strings.EqualFold(n, name) {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// jsonFieldNames are the member names struct t takes, in field order.
func jsonFieldNames(t reflect.Type) []string {
	var names []string
	for _, f := range reflect.VisibleFields(t) {
		if n, ok := jsonName(f); ok {
			names = append(names, n)
		}
	}
	return names
}

// jsonName is the member name of field f, false for a field encoding/json
// does not decode into (unexported, "-", or a struct embedded without a
// name, whose fields stand for it).
func jsonName(f reflect.StructField) (string, bool) {
	tag := f.Tag.Get("json")
	if !f.IsExported() || tag == "-" || f.Anonymous && tag == "" && deref(f.Type).Kind() == reflect.Struct {
		return "", false
	}
	if name, _, _ := strings.Cut(tag, ","); name != "" {
		return name, true
	}
	return f.Name, true
}
