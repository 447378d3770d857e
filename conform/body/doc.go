// Package body holds the request bodies that kwire conform sends: for every
// API and version of a spec set, a valid request (one that a correct broker
// answers with something other than a validation error where it can), and
// the access class of each API, which decides whether conform may send it at
// all (see Access).
//
// It decides what is sent; package conform decides when, to whom, and how
// the answer is judged.
package body
