package adirt

// userPkgs are the instrumented packages. The instrumenter replaces this
// file in the overlay with the list of the target's packages.
var userPkgs = []string{"main"}

// numSites is the number of instrumented functions.
const numSites = 64
