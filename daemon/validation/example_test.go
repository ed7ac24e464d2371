package validation_test

import (
	"fmt"

	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/daemon/validation"
)

// Validate answers as the API server would on create, here for a budget
// above 100% that daemon.Compute would take as it is.
func ExampleValidate() {
	ds := dt.DaemonSet("agent", dt.WithMaxUnavailable("150%"))
	for _, err := range validation.Validate(ds) {
		fmt.Println(err)
	}
	// Output:
	// spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: "150%": must not be greater than 100%
}
