package web

// Engine is an IndexHealth: its index tells of damage found while it
// serves.
var _ IndexHealth = (*Engine)(nil)

// Damaged is the index's damage found while serving
// (index.Index.Damaged): nil while none is known.
func (e *Engine) Damaged() error {
	if e.ix == nil {
		return nil
	}
	return e.ix.Damaged()
}

// CheckFailure tells the index of a search that failed with err and
// returns its damage if that is why (index.Index.CheckFailure).
func (e *Engine) CheckFailure(err error) error {
	if e.ix == nil {
		return nil
	}
	return e.ix.CheckFailure(err)
}
