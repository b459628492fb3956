package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
)

// decodeJSONBody reads one JSON object of at most limit bytes (the setting
// limitKey) into v, rejecting unknown members and members given twice,
// and answers the error itself.
func decodeJSONBody(w http.ResponseWriter, r *http.Request, v any, limit int64, limitKey string) bool {
	// The body is read whole (it is small, at most limit bytes) so that a
	// type error can be placed in it again: see jsonPathAt.
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	var tooBig *http.MaxBytesError
	if err != nil && !errors.As(err, &tooBig) {
		// The client stopped sending before the end (or the read timed
		// out): what came is not what was sent, so none of it is decoded.
		msg := "the body could not be read whole"
		if r.ContentLength > 0 {
			msg = fmt.Sprintf("the body ended after %d of its %d bytes (Content-Length)", len(data), r.ContentLength)
		}
		writeError(w, http.StatusBadRequest, apiError{Code: CodeBadBody, Field: "body", Value: fmt.Sprintf("%d bytes", len(data)),
			Limit: "the whole body, within server.http.read_timeout", Message: msg})
		return false
	}
	if err == nil && len(bytes.TrimSpace(data)) == 0 {
		writeError(w, http.StatusBadRequest, apiError{Code: CodeBadBody, Field: "body", Value: "(empty)",
			Limit: "must be one JSON object", Message: "body is empty; a JSON object is required"})
		return false
	}
	if err == nil && string(bytes.TrimSpace(data)) == "null" {
		// encoding/json decodes null into a struct as nothing at all.
		writeError(w, http.StatusBadRequest, apiError{Code: CodeBadBody, Field: "body", Value: "JSON null",
			Limit: "must be one JSON object", Message: "body: got JSON null, want an object"})
		return false
	}
	if err == nil {
		// Before decoding: encoding/json keeps a member given twice
		// (the last), and names an unknown one without its path.
		if me := refusedMember(data, v); me != nil {
			limit := "given once (member names match in any case)"
			switch {
			case me.twice:
			case len(me.allowed) == 0:
				limit = "none"
			default:
				limit = "one of " + strings.Join(me.allowed, ", ")
			}
			writeError(w, http.StatusBadRequest, apiError{Code: CodeBadBody, Field: me.path, Limit: limit, Message: me.Error()})
			return false
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		err = dec.Decode(v)
		if err == nil {
			if _, extra := dec.Token(); extra != io.EOF {
				err = errors.New("body must hold one JSON object")
			}
		}
	}
	if err == nil {
		return true
	}
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	switch {
	case errors.As(err, &tooBig):
		writeError(w, http.StatusRequestEntityTooLarge, apiError{Code: CodeBodyTooLarge, Field: "body",
			Limit: fmt.Sprintf("at most %d bytes (%s)", tooBig.Limit, limitKey), Message: fmt.Sprintf("body over %d bytes", tooBig.Limit)})
	case errors.As(err, &typeErr) && typeErr.Field == "":
		writeError(w, http.StatusBadRequest, apiError{Code: CodeBadBody, Field: "body", Value: "JSON " + typeErr.Value,
			Limit: "must be one JSON object", Message: fmt.Sprintf("body: got JSON %s, want an object", typeErr.Value)})
	case errors.As(err, &typeErr):
		want := jsonKind(typeErr.Type)
		field := jsonPathAt(data, typeErr.Field, typeErr.Offset)
		writeError(w, http.StatusBadRequest, apiError{Code: CodeBadParameter, Field: field, Value: "JSON " + typeErr.Value,
			Limit: "must be a JSON " + want, Message: fmt.Sprintf("%s: got JSON %s, want %s", field, typeErr.Value, want)})
	case errors.As(err, &syntaxErr):
		writeError(w, http.StatusBadRequest, apiError{Code: CodeBadBody, Field: "body", Limit: "must be valid JSON",
			Message: fmt.Sprintf("bad JSON at byte %d: %v", syntaxErr.Offset, syntaxErr)})
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		f := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		writeError(w, http.StatusBadRequest, apiError{Code: CodeBadBody, Field: f, Limit: "unknown field", Message: fmt.Sprintf("unknown field %q", f)})
	default:
		writeError(w, http.StatusBadRequest, apiError{Code: CodeBadBody, Field: "body", Limit: "must be one JSON object", Message: err.Error()})
	}
	return false
}

// jsonKind names what a request field of Go type t holds in JSON's terms,
// so that an error speaks the language of the request, not of its Go type.
func jsonKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	// A number out of range is refused as of the wrong type too; the
	// range says why.
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return fmt.Sprintf("whole number in [-2^%d, 2^%d)", t.Bits()-1, t.Bits()-1)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return fmt.Sprintf("whole number in [0, 2^%d)", t.Bits())
	case reflect.Float32:
		return "number of magnitude below 3.4e38"
	case reflect.Float64:
		return "number of magnitude below 1.8e308"
	case reflect.Slice, reflect.Array:
		return "array"
	case reflect.Map, reflect.Struct:
		return "object"
	}
	return t.String()
}

// jsonPathAt names the value of data that a type error is about, with the
// array indices that encoding/json leaves out of UnmarshalTypeError.Field
// ("targets.bid" becomes "targets[1].bid"). The error's Offset is the end
// of the offending scalar, or just past the "{" or "[" that opens the
// offending object or array, which is where a token reader stands after
// reading it; so the value meant is the first one on the field's path that
// ends there or later. Should none, the field is named as the error names
// it.
func jsonPathAt(data []byte, field string, offset int64) string {
	w := newJSONWalk(data, nil)
	for {
		if _, err := w.next(); err != nil {
			return field
		}
		if len(w.stack) > 0 && w.path(false) == field && w.dec.InputOffset() >= offset {
			return w.path(true)
		}
	}
}

// refusedMember returns the first member of data, an object decoding into
// v, that is given twice or that its struct type does not take, nil if
// none is (or data is not JSON, which decoding reports).
func refusedMember(data []byte, v any) *jsonMemberError {
	w := newJSONWalk(data, reflect.TypeOf(v))
	for {
		_, err := w.next()
		var me *jsonMemberError
		if errors.As(err, &me) {
			return me
		}
		if err != nil {
			return nil
		}
	}
}
