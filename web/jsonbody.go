package web

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
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
	case errors.As(err, &typeErr):
		writeError(w, http.StatusBadRequest, apiError{Code: CodeBadParameter, Field: typeErr.Field, Value: "JSON " + typeErr.Value,
			Limit: "must be a JSON " + typeErr.Type.String(), Message: fmt.Sprintf("%s: got JSON %s, want %s", typeErr.Field, typeErr.Value, typeErr.Type)})
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
