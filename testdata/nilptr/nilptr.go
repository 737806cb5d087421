// Package nilptr looks users up in a directory and greets them.
package nilptr

import "fmt"

// User is an entry of the directory.
type User struct {
	ID   int
	Name string
}

// Directory holds the known users.
type Directory struct {
	users []*User
}

// NewDirectory returns a directory with three users.
func NewDirectory() *Directory {
	return &Directory{users: []*User{
		{ID: 1, Name: "ada"},
		{ID: 2, Name: "bob"},
		{ID: 3, Name: "cy"},
	}}
}

// Find returns the user with the given id, or nil when there is none.
func (d *Directory) Find(id int) *User {
	for _, u := range d.users {
		if u.ID == id {
			return u
		}
	}
	return nil
}

// Greeting greets the user with the given id, or says
// "hello, stranger" when the id is unknown.
func Greeting(d *Directory, id int) string {
	u := d.Find(id)
	return fmt.Sprintf("hello, %s", u.Name)
}

// Greetings greets every id in turn.
func Greetings(d *Directory, ids []int) []string {
	var out []string
	for _, id := range ids {
		out = append(out, Greeting(d, id))
	}
	return out
}
