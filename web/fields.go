package web

import (
	"fmt"
	"net/url"
	"strings"
)

// ResultFields is a set of a result's JSON fields: the search API's
// fields parameter (a partial response, as Solr's fl or the Google APIs'
// fields). Its zero value is every field. Fields left out are not
// written, and when none of the snippet fields is asked for, Engine cuts
// no snippet (nor does any node of a cluster): a client that lists links
// (or scores a run) pays for retrieval and ranking alone.
type ResultFields uint16

// The fields of a Result, in the order its JSON writes them.
const (
	FieldURL ResultFields = 1 << iota
	FieldTitle
	FieldSnippet
	FieldSnippetText
	FieldHighlights
	FieldMatchedTerms
	FieldScore
	FieldFetchedAt
	FieldPromoted
	FieldClickURL

	allResultFields = FieldClickURL<<1 - 1

	// snippetFields are the fields cut from a page's text for the query.
	snippetFields = FieldSnippet | FieldSnippetText | FieldHighlights | FieldMatchedTerms
)

// resultFieldNames are the fields' JSON keys, bit by bit.
var resultFieldNames = [...]string{"url", "title", "snippet", "snippet_text", "highlights", "matched_terms",
	"score", "fetched_at", "promoted", "click_url"}

// resultFieldKeys are the names as a JSON object's keys: "url": …
var resultFieldKeys = func() (keys [len(resultFieldNames)]string) {
	for i, name := range resultFieldNames {
		keys[i] = `"` + name + `":`
	}
	return keys
}()

// Wants reports whether any of g is in the set.
func (f ResultFields) Wants(g ResultFields) bool { return f == 0 || f&g != 0 }

// parseResultFields reads the fields parameter of q: comma-separated JSON
// keys of a result, each at most once; none or "" is every field.
func parseResultFields(q url.Values) (ResultFields, *InputError) {
	if ie := givenOnce(q, "fields"); ie != nil {
		return 0, ie
	}
	v := q.Get("fields")
	if v == "" {
		return 0, nil
	}
	var f ResultFields
	for name := range strings.SplitSeq(v, ",") {
		name = strings.TrimSpace(name)
		i := 0
		for i < len(resultFieldNames) && resultFieldNames[i] != name {
			i++
		}
		switch {
		case name == "":
			// The empty name alone would make an error without a value.
			return 0, fieldsError(v, "names an empty field: two commas in a row, or one at an end")
		case i == len(resultFieldNames):
			return 0, fieldsError(name, "is not a result field")
		case f&(1<<i) != 0:
			return 0, fieldsError(name, "is named twice")
		}
		f |= 1 << i
	}
	return f, nil
}

// fieldsError is the fields parameter's error for the field name.
func fieldsError(name, why string) *InputError {
	return &InputError{Field: "fields", Value: name, Limit: "comma-separated, each once, of " + strings.Join(resultFieldNames[:], ", "),
		Message: fmt.Sprintf("%q %s", name, why)}
}
