package window

import "testing"

func TestWithinOneEdit(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"mon", "mon", true},
		{"fry", "fri", true},
		{"mo", "mon", true},
		{"moon", "mon", true},
		{"", "a", true},
		{"", "", true},
		{"tues", "tue", true},
		{"thur", "thu", true},
		{"sund", "sun", true},
		{"fr", "sat", false},
		{"xyz", "mon", false},
		{"mnoo", "mon", false},
		{"omn", "mon", false},
		{"weds", "wed", true},
		{"wedss", "wed", false},
	}
	for _, tt := range tests {
		for _, pair := range [][2]string{{tt.a, tt.b}, {tt.b, tt.a}} {
			if got := withinOneEdit(pair[0], pair[1]); got != tt.want {
				t.Errorf("withinOneEdit(%q, %q) = %v, want %v", pair[0], pair[1], got, tt.want)
			}
		}
	}
}
