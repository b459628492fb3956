package relation

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/deltaq/deltaq/repo"
)

// bucket is the repository bucket this package owns (repo/FORMAT.md).
const bucket = "relation"

// Errors of the store.
var (
	ErrNoRelation = errors.New("relation: no such relation")
	ErrExists     = errors.New("relation: a relation of that name exists")
)

// Definition is a relation as created: its source and how it is kept.
type Definition struct {
	Name   string `json:"name"`
	Source Source `json:"source"`
	// Weight is w(r): "1", "field:NAME" (a numeric field; a record whose
	// field is not a finite number >= 0 weighs 1) or "column" (the second
	// column of the ids file).
	Weight string `json:"weight"`
	// Dissimilarity is "changed" or "abs:FIELD" (|Δ| of a numeric field,
	// §3.1's citation example).
	Dissimilarity string    `json:"dissimilarity"`
	Created       time.Time `json:"created"`
}

var namePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,62}$`)

// Validate names the flag, the value and the limit.
func (d Definition) Validate() error {
	var errs []error
	if !namePattern.MatchString(d.Name) {
		errs = append(errs, fmt.Errorf("relation name %q: must be 1–63 of a-z, 0-9, '_' and '-', starting with a letter or digit", d.Name))
	}
	if err := d.Source.Validate(); err != nil {
		errs = append(errs, err)
	}
	fields := map[string]bool{}
	for _, spec := range d.Source.Fields {
		if f, err := ParseField(spec); err == nil {
			fields[f.Name] = true
		}
	}
	switch {
	case d.Weight == "1" || d.Weight == "column":
	case strings.HasPrefix(d.Weight, "field:") && fields[strings.TrimPrefix(d.Weight, "field:")]:
	default:
		errs = append(errs, fmt.Errorf("--weight %q: must be 1, column (the ids file's second column) or field:NAME of an --extract field", d.Weight))
	}
	switch {
	case d.Dissimilarity == "changed":
	case strings.HasPrefix(d.Dissimilarity, "abs:") && fields[strings.TrimPrefix(d.Dissimilarity, "abs:")]:
	default:
		errs = append(errs, fmt.Errorf("--dissimilarity %q: must be changed or abs:NAME of an --extract field", d.Dissimilarity))
	}
	return errors.Join(errs...)
}

// Row is one record of the local relation.
type Row struct {
	ID       string            `json:"id"`
	Fields   map[string]string `json:"fields,omitempty"`
	Version  string            `json:"version,omitempty"` // Record.Version of Fields; "" before the first read
	Weight   float64           `json:"weight"`            // from the ids file; see Definition.Weight
	LastSync time.Time         `json:"last_sync,omitzero"`
	Rate     RateObservation   `json:"rate"`
	Missing  bool              `json:"missing,omitempty"` // the source answered "no such item"
	// FetchError is why the last fetch by ID got no answer (a status, a
	// page that is not an item page, an ID that makes no URL), and
	// FetchErrorAt when; both are cleared when the record is next read
	// or answered missing. Such a record is fetched after the others.
	FetchError   string    `json:"fetch_error,omitempty"`
	FetchErrorAt time.Time `json:"fetch_error_at,omitzero"`
}

// FieldChange is one field's old and new value.
type FieldChange struct {
	Field  string `json:"field"`
	Before string `json:"before"`
	After  string `json:"after"`
}

// String reads "price 19.99 → 17.49".
func (c FieldChange) String() string { return c.Field + " " + c.Before + " → " + c.After }

// Change is what one sync found different in one record.
type Change struct {
	Seq    uint64        `json:"seq"`
	ID     string        `json:"id"`
	At     time.Time     `json:"at"`
	Fields []FieldChange `json:"fields"`
}

// syncState is per-relation bookkeeping.
type syncState struct {
	NextSeq  uint64    `json:"next_seq"`
	LastSync time.Time `json:"last_sync,omitzero"`
}

// Store keeps relations in the repository's relation bucket. It is safe
// for concurrent readers; writes of one relation are serialised by its
// callers (one sync at a time per relation).
type Store struct {
	db *repo.DB
}

// NewStore returns the store over db.
func NewStore(db *repo.DB) *Store { return &Store{db: db} }

func defKey(name string) string       { return "d/" + name }
func rowPrefix(name string) string    { return "r/" + name + "\x00" }
func changePrefix(name string) string { return "c/" + name + "\x00" }
func hitsPrefix(name string) string   { return "h/" + name + "\x00" }
func stateKey(name string) string     { return "s/" + name }
func rowKey(name, id string) string   { return rowPrefix(name) + id }
func changeKey(name string, seq uint64) string {
	return changePrefix(name) + string(binary.BigEndian.AppendUint64(nil, seq))
}

// Create stores a new relation.
func (s *Store) Create(ctx context.Context, d Definition) error {
	if err := d.Validate(); err != nil {
		return err
	}
	if _, err := s.db.Bucket(bucket, defKey(d.Name)); err == nil {
		return fmt.Errorf("%w: %q", ErrExists, d.Name)
	} else if !errors.Is(err, repo.ErrNotFound) {
		return err
	}
	v, err := json.Marshal(d)
	if err != nil {
		return fmt.Errorf("relation: encode %s: %w", d.Name, err)
	}
	b := s.db.NewBatch(ctx)
	defer b.Close()
	if err := b.PutBucket(bucket, defKey(d.Name), v); err != nil {
		return err
	}
	return b.Commit()
}

// Definition reads a relation's definition.
func (s *Store) Definition(name string) (Definition, error) {
	var d Definition
	v, err := s.db.Bucket(bucket, defKey(name))
	if errors.Is(err, repo.ErrNotFound) {
		return d, fmt.Errorf("%w: %q", ErrNoRelation, name)
	}
	if err != nil {
		return d, err
	}
	if err := json.Unmarshal(v, &d); err != nil {
		return d, fmt.Errorf("relation: decode %s: %w", name, err)
	}
	return d, nil
}

// List returns every relation's definition, by name.
func (s *Store) List(ctx context.Context) ([]Definition, error) {
	var out []Definition
	for kv, err := range s.db.BucketScan(ctx, bucket, "d/") {
		if err != nil {
			return nil, err
		}
		var d Definition
		if err := json.Unmarshal(kv[1], &d); err != nil {
			return nil, fmt.Errorf("relation: decode %q: %w", kv[0], err)
		}
		out = append(out, d)
	}
	return out, nil
}

// Status is a relation's definition and where it stands.
type Status struct {
	Definition
	Records int // rows, Missing among them
	Missing int // records the source answered "no such item" for
	// LastSync is when a sync last stored a request's results; zero:
	// never.
	LastSync time.Time
	Changes  uint64 // field changes recorded, the last one's Seq
}

// Statuses returns every relation's status, by name.
func (s *Store) Statuses(ctx context.Context) ([]Status, error) {
	defs, err := s.List(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Status, len(defs))
	for i, d := range defs {
		rows, err := s.Rows(ctx, d.Name)
		if err != nil {
			return nil, err
		}
		st, err := s.state(d.Name)
		if err != nil {
			return nil, err
		}
		out[i] = Status{Definition: d, Records: len(rows), LastSync: st.LastSync, Changes: st.NextSeq - 1}
		for _, r := range rows {
			if r.Missing {
				out[i].Missing++
			}
		}
	}
	return out, nil
}

// MaxIDBytes bounds a record ID.
const MaxIDBytes = 1024

// checkIDText refuses an ID that is not printable UTF-8 text: an ID is
// shown in listings and reports and goes into item URLs, and a NUL or an
// invalid byte in one is a file that is not an ids file.
func checkIDText(id string) error {
	if !utf8.ValidString(id) {
		return fmt.Errorf("id %.60q is not valid UTF-8", id)
	}
	if i := strings.IndexFunc(id, unicode.IsControl); i >= 0 {
		r, _ := utf8.DecodeRuneInString(id[i:])
		return fmt.Errorf("id %.60q holds the control character %U at byte %d; an id is printable text", id, r, i)
	}
	return nil
}

// ParseIDs reads an ids file: one ID a line, optionally a tab and a
// weight; blank lines and # comments skipped. check, when not nil,
// refuses an ID (Source.CheckID: one that makes no item URL); its error
// is named with the line.
func ParseIDs(text string, check func(id string) error) (ids []string, weights []float64, err error) {
	for n, line := range strings.Split(text, "\n") {
		line = strings.TrimRight(line, "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		id, w, hasW := strings.Cut(line, "\t")
		id = strings.TrimSpace(id)
		switch {
		case id == "":
			return nil, nil, fmt.Errorf("relation: ids line %d: empty id", n+1)
		case len(id) > MaxIDBytes:
			return nil, nil, fmt.Errorf("relation: ids line %d: id is %d bytes, the limit is %d", n+1, len(id), MaxIDBytes)
		}
		if err := checkIDText(id); err != nil {
			return nil, nil, fmt.Errorf("relation: ids line %d: %w", n+1, err)
		}
		if check != nil {
			if err := check(id); err != nil {
				return nil, nil, fmt.Errorf("relation: ids line %d: %w", n+1, err)
			}
		}
		weight := 1.0
		if hasW {
			var ok bool
			if weight, ok = parseWeight(w); !ok {
				return nil, nil, fmt.Errorf("relation: ids line %d: weight %.40q: must be a finite number >= 0", n+1, strings.TrimSpace(w))
			}
		}
		ids = append(ids, id)
		weights = append(weights, weight)
	}
	return ids, weights, nil
}

// parseWeight reads a weight w(r), from the ids file's second column or
// a field: a finite number >= 0; ok is false for anything else ("NaN",
// "Inf" and a number past float64's range among them).
func parseWeight(s string) (w float64, ok bool) {
	w, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || w < 0 || math.IsInf(w, 0) || math.IsNaN(w) {
		return 0, false
	}
	return w, true
}

// Add puts IDs into a relation; an ID already there keeps its record and
// takes the new weight. It returns how many were new. An ID that makes no
// item URL (Source.CheckID) is refused, and nothing is added.
func (s *Store) Add(ctx context.Context, name string, ids []string, weights []float64) (int, error) {
	def, err := s.Definition(name)
	if err != nil {
		return 0, err
	}
	b := s.db.NewBatch(ctx)
	defer b.Close()
	added := 0
	for i, id := range ids {
		if err := checkIDText(id); err != nil {
			return 0, fmt.Errorf("relation: add to %s: %w", name, err)
		}
		if err := def.Source.CheckID(id); err != nil {
			return 0, fmt.Errorf("relation: add to %s: %w", name, err)
		}
		row := Row{ID: id, Weight: weights[i]}
		v, err := b.Bucket(bucket, rowKey(name, id))
		switch {
		case err == nil:
			if err := json.Unmarshal(v, &row); err != nil {
				return 0, fmt.Errorf("relation: decode row %s: %w", id, err)
			}
			row.Weight = weights[i]
		case errors.Is(err, repo.ErrNotFound):
			added++
		default:
			return 0, err
		}
		if err := putJSON(b, rowKey(name, id), row); err != nil {
			return 0, err
		}
	}
	return added, b.Commit()
}

// Remove deletes the records of the IDs from a relation; the change log
// keeps their past changes. It returns how many were there.
func (s *Store) Remove(ctx context.Context, name string, ids []string) (int, error) {
	if _, err := s.Definition(name); err != nil {
		return 0, err
	}
	b := s.db.NewBatch(ctx)
	defer b.Close()
	removed := 0
	for _, id := range ids {
		_, err := b.Bucket(bucket, rowKey(name, id))
		switch {
		case errors.Is(err, repo.ErrNotFound):
			continue
		case err != nil:
			return 0, err
		}
		if err := b.DeleteBucket(bucket, rowKey(name, id)); err != nil {
			return 0, err
		}
		removed++
	}
	return removed, b.Commit()
}

// Rows returns a relation's records, by ID.
func (s *Store) Rows(ctx context.Context, name string) ([]Row, error) {
	if _, err := s.Definition(name); err != nil {
		return nil, err
	}
	var out []Row
	for kv, err := range s.db.BucketScan(ctx, bucket, rowPrefix(name)) {
		if err != nil {
			return nil, err
		}
		var r Row
		if err := json.Unmarshal(kv[1], &r); err != nil {
			return nil, fmt.Errorf("relation: decode row %q: %w", kv[0], err)
		}
		out = append(out, r)
	}
	return out, nil
}

// Changes returns up to limit changes with Seq > since, oldest first.
func (s *Store) Changes(ctx context.Context, name string, since uint64, limit int) ([]Change, error) {
	if _, err := s.Definition(name); err != nil {
		return nil, err
	}
	var out []Change
	for kv, err := range s.db.BucketScan(ctx, bucket, changePrefix(name)) {
		if err != nil {
			return nil, err
		}
		seq := kv[0][len(changePrefix(name)):] // BucketScan keys are relative to the bucket
		if len(seq) != 8 || binary.BigEndian.Uint64(seq) <= since {
			continue
		}
		var c Change
		if err := json.Unmarshal(kv[1], &c); err != nil {
			return nil, fmt.Errorf("relation: decode change: %w", err)
		}
		out = append(out, c)
		if len(out) == limit {
			break
		}
	}
	return out, nil
}

// reportedHits returns the hit counts the source reported for past probes.
func (s *Store) reportedHits(ctx context.Context, name string) (ReportedHits, error) {
	out := ReportedHits{}
	for kv, err := range s.db.BucketScan(ctx, bucket, hitsPrefix(name)) {
		if err != nil {
			return nil, err
		}
		n, err := strconv.ParseFloat(string(kv[1]), 64)
		if err != nil {
			return nil, fmt.Errorf("relation: decode hit count %q: %w", kv[0], err)
		}
		out[string(kv[0][len(hitsPrefix(name)):])] = n
	}
	return out, nil
}

func (s *Store) state(name string) (syncState, error) {
	var st syncState
	v, err := s.db.Bucket(bucket, stateKey(name))
	if errors.Is(err, repo.ErrNotFound) {
		return syncState{NextSeq: 1}, nil
	}
	if err != nil {
		return st, err
	}
	if err := json.Unmarshal(v, &st); err != nil {
		return st, fmt.Errorf("relation: decode state of %s: %w", name, err)
	}
	return st, nil
}

// observed is what one request taught about the relation: records read,
// hit counts reported.
type observed struct {
	rows    []Row
	changes [][]FieldChange // by rows
	hits    map[string]float64
	at      time.Time
}

// commit writes one request's observations in one batch: the rows, a
// change entry for each record whose fields moved, the reported counts
// and the sequence. Either all of it is stored or none.
func (s *Store) commit(ctx context.Context, name string, o observed) error {
	st, err := s.state(name)
	if err != nil {
		return err
	}
	b := s.db.NewBatch(ctx)
	defer b.Close()
	for i, r := range o.rows {
		if err := putJSON(b, rowKey(name, r.ID), r); err != nil {
			return err
		}
		if len(o.changes[i]) > 0 {
			c := Change{Seq: st.NextSeq, ID: r.ID, At: o.at, Fields: o.changes[i]}
			if err := putJSON(b, changeKey(name, c.Seq), c); err != nil {
				return err
			}
			st.NextSeq++
		}
	}
	for q, n := range o.hits {
		if err := b.PutBucket(bucket, hitsPrefix(name)+q, []byte(strconv.FormatFloat(n, 'g', -1, 64))); err != nil {
			return err
		}
	}
	st.LastSync = o.at
	if err := putJSON(b, stateKey(name), st); err != nil {
		return err
	}
	return b.Commit()
}

func putJSON(b *repo.Batch, key string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("relation: encode %q: %w", key, err)
	}
	return b.PutBucket(bucket, key, data)
}

// diffFields lists the fields whose values differ, by name.
func diffFields(before, after map[string]string) []FieldChange {
	var out []FieldChange
	names := map[string]bool{}
	for k := range before {
		names[k] = true
	}
	for k := range after {
		names[k] = true
	}
	keys := make([]string, 0, len(names))
	for k := range names {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if before[k] != after[k] {
			out = append(out, FieldChange{Field: k, Before: before[k], After: after[k]})
		}
	}
	return out
}
