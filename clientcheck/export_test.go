package clientcheck

// NextSequence is nextSequence, for tests.
var NextSequence = nextSequence
