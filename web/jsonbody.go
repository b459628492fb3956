package web

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
)

// decodeJSONBody reads one JSON object of at most limit bytes (the setting
// limitKey) into v, rejecting unknown fields, and answers the error itself.
func decodeJSONBody(w http.ResponseWriter, r *http.Request, v any, limit int64, limitKey string) bool {
	body := http.MaxBytesReader(w, r.Body, limit)
	dec := json.NewDecoder(body)
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil {
		if _, extra := dec.Token(); extra != io.EOF {
			err = errors.New("body must hold one JSON object")
		}
	}
	if err == nil {
		return true
	}
	var tooBig *http.MaxBytesError
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
		writeError(w, http.StatusBadRequest, apiError{Code: CodeBadParameter, Field: typeErr.Field, Value: "JSON " + typeErr.Value,
			Limit: "must be a JSON " + want, Message: fmt.Sprintf("%s: got JSON %s, want %s", typeErr.Field, typeErr.Value, want)})
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
