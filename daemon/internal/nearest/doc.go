// Package nearest decides which word a user probably meant: the edit
// distance of two strings, and the closest of a list, for the "did you
// mean" of an unknown container name (apply.SetImages) or a misspelt
// annotation prefix (progressive.AnnotationWarnings).
package nearest
