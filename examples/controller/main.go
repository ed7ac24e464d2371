package main

import (
	"os"

	"github.com/daemonplan/daemonplan/examples/controller/internal/app"
)

func main() { os.Exit(app.Main(os.Args[1:])) }
