package notify

// OnRetryCommit makes o tell f of each of Retry's commits.
func OnRetryCommit(o *Outbox, f func(moved int)) { o.retried = f }
