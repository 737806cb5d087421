import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { findTests, isTestFile, runPattern, testAt } from '../../src/testfuncs';

const file = `package x

import "testing"

func TestAdd(t *testing.T) {
	t.Log("func TestInString(t *testing.T) {")
}

func Test(t *testing.T) {}

func TestÜber(tt *testing.T) {}

func Test_under(t *testing.T) {}

func Testlower(t *testing.T) {}

func TestMain(m *testing.M) {}

func BenchmarkAdd(b *testing.B) {}

func (s suite) TestMethod(t *testing.T) {}

func helper(t *testing.T) {}

/*
func TestCommented(t *testing.T) {}
*/

var raw = \`
func TestInRaw(t *testing.T) {}
\`

func TestNoName(*testing.T) {}

func  TestSpaced ( t  * testing.T ) {
}
`;

test('findTests finds exactly the test functions go test runs', () => {
  const got = findTests(file).map((t) => t.name);
  assert.deepEqual(got, ['TestAdd', 'Test', 'TestÜber', 'Test_under', 'TestNoName', 'TestSpaced']);
});

test('findTests gives the 0-based line of each declaration', () => {
  const lines = file.split('\n');
  for (const t of findTests(file)) {
    assert.match(lines[t.line], new RegExp(`func\\s+${t.name}\\s*\\(`));
  }
  assert.equal(findTests(file)[0].line, 4);
});

test('findTests reads CRLF files', () => {
  assert.deepEqual(findTests('package x\r\n\r\nfunc TestA(t *testing.T) {\r\n}\r\n').map((t) => [t.name, t.line]), [['TestA', 2]]);
});

test('testAt is the test whose body holds the cursor', () => {
  assert.equal(testAt(file, 0), undefined);
  assert.equal(testAt(file, 4), 'TestAdd');
  assert.equal(testAt(file, 5), 'TestAdd');
  assert.equal(testAt(file, 8), 'Test');
});

test('isTestFile and runPattern', () => {
  assert.ok(isTestFile('/a/b/x_test.go'));
  assert.ok(!isTestFile('/a/b/x.go'));
  assert.ok(!isTestFile('/a/b_test.go/x.go'));
  assert.equal(runPattern('TestAdd'), '^TestAdd$');
  assert.equal(runPattern('Test.X'), '^Test\\.X$');
});
