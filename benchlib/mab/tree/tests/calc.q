# calc.q - self-checking test program for the qx language.
#
# Run with:   ./quill calc tests/calc.q
# Every check is an assert(); the program prints one line per section and
# "all tests passed" at the end.  A failing assert stops the run with a
# runtime error that names the line.

let passed = 0;

fn check(cond, what) {
    assert(cond, what);
    passed += 1;
    return cond;
}

fn section(name) {
    print "--", name;
}

# ---------------------------------------------------------------------
section("arithmetic");

check(1 + 2 * 3 == 7, "precedence of * over +");
check((1 + 2) * 3 == 9, "parentheses");
check(2 ^ 10 == 1024, "power");
check(2 ** 3 ** 2 == 512, "power is right associative");
check(-2 ^ 2 == -4, "unary minus binds looser than power");
check(7 % 3 == 1, "modulo");
check(-7 % 3 == 2, "modulo is floored");
check(7 / 2 == 3.5, "division is floating point");
check(0x1F == 31, "hexadecimal literal");
check(1_000_000 == 1000000, "digit separators");
check(1.5e3 == 1500, "exponent");
check(abs(-3) == 3, "abs");
check(floor(2.7) == 2 and ceil(2.1) == 3, "floor and ceil");
check(round(2.5) == 3 and round(-2.5) == -3, "round half away from zero");
check(sqrt(144) == 12, "sqrt");
check(min(4, 2, 8) == 2 and max([4, 2, 8]) == 8, "min and max");
check(pow(3, 4) == 81, "pow");
check(fmt(pi, 4) == "3.1416", "fmt");
check(log(1000, 10) > 2.999 and log(1000, 10) < 3.001, "log with base");
check(hex(255) == "0xff", "hex");

let x = 10;
x += 5;
x -= 3;
x *= 2;
x /= 4;
check(x == 6, "compound assignment");

# ---------------------------------------------------------------------
section("logic");

check(true and not false, "and, not");
check((nil or 5) == 5, "or returns the first truthy operand");
check((0 and 1) == 0, "and returns the first falsy operand");
check(not "" and not [] and not 0 and not nil, "falsy values");
check("a" < "b" and "abc" < "abd" and "ab" < "abc", "string ordering");
check([1, 2] < [1, 3] and [1, 2] < [1, 2, 0], "list ordering");
check(1 != 2 and "x" == "x" and [1, [2]] == [1, [2]], "equality");

# ---------------------------------------------------------------------
section("strings");

let s = "Hello, World";
check(len(s) == 12, "len");
check(upper(s) == "HELLO, WORLD" and lower(s) == "hello, world", "case");
check(substr(s, 7) == "World" and substr(s, 0, 5) == "Hello", "substr");
check(substr(s, -5, 3) == "Wor", "substr from the end");
check(find(s, "World") == 7 and find(s, "xyz") == -1, "find");
check(replace("a-b-c", "-", "+") == "a+b+c", "replace");
check(trim("  padded \t") == "padded", "trim");
check(startswith(s, "Hell") and endswith(s, "rld"), "prefix and suffix");
check(s[0] == "H" and s[-1] == "d", "indexing");
check("ab" * 3 == "ababab", "repetition");
check("n=" + 42 == "n=42", "concatenation converts numbers");
check(str(1.5) + str(true) + str(nil) == "1.5truenil", "str");
check(repr("a\"b") == "\"a\\\"b\"", "repr escapes quotes");
check(num("  12.5 ") == 12.5 and num("x") == nil, "num");
check(join(split("a,b,,c", ","), "|") == "a|b||c", "split and join");
check(len(split("  several   blank separated words ")) == 4, "split on blanks");
check(join(words("It's a well-known fact."), " ") == "It's a well-known fact",
      "words keeps apostrophes and hyphens");
check(ord("A") == 65 and chr(97) == "a", "ord and chr");
check(ulen("na\u{ef}ve") == 5 and len("na\u{ef}ve") == 6, "utf-8 lengths");
check(lower("\u{c9}T\u{c9}") == "\u{e9}t\u{e9}", "lower case beyond ASCII");
check(glob("*.c", "main.c") and not glob("*.c", "main.h"), "glob");
check(glob("[a-c]?x*", "bqxyz"), "glob brackets");
check(contains("haystack", "st") and not contains("haystack", "ts"), "contains");
check(crc32("123456789") == 3421780262, "crc32 check value");

# ---------------------------------------------------------------------
section("lists");

let l = [3, 1, 2];
push(l, 5, 4);
check(len(l) == 5 and l[3] == 5, "push");
check(pop(l) == 4 and len(l) == 4, "pop");
l[0] = 10;
l[1] += 1;
check(l == [10, 2, 2, 5], "index assignment");
check(sort([3, 1, 2]) == [1, 2, 3], "sort numbers");
check(sort(["pear", "apple", "fig"]) == ["apple", "fig", "pear"], "sort strings");
check(sort([3, 1, 2], fn(a, b) { return a > b; }) == [3, 2, 1], "sort with predicate");
check(reverse([1, 2, 3]) == [3, 2, 1], "reverse");
check(sum([1, 2, 3, 4]) == 10, "sum");
check(0..5 == [0, 1, 2, 3, 4], "range operator");
check(range(2, 11, 3) == [2, 5, 8], "range with step");
check(range(5, 0, -2) == [5, 3, 1], "descending range");
check([1, 2] + [3] == [1, 2, 3], "list concatenation");
check([0] * 3 == [0, 0, 0], "list repetition");
check(map([1, 2, 3], fn(v) { return v * v; }) == [1, 4, 9], "map");
check(filter(0..10, fn(v) { return v % 2 == 0; }) == [0, 2, 4, 6, 8], "filter");
check(reduce([1, 2, 3, 4], fn(a, b) { return a * b; }) == 24, "reduce");
check(contains([1, "two", 3], "two"), "contains in a list");

let total = 0;
for v in [1, 2, 3, 4, 5, 6] {
    if v == 2 { continue; }
    if v == 5 { break; }
    total += v;
}
check(total == 8, "for with break and continue");

let letters = "";
for ch in "abc" {
    letters = ch + letters;
}
check(letters == "cba", "for over a string");

let count = 0;
for i in 4 {
    count += i;
}
check(count == 6, "for over a number");

# ---------------------------------------------------------------------
section("functions");

fn fib(n) {
    if n < 2 { return n; }
    return fib(n - 1) + fib(n - 2);
}
check(fib(20) == 6765, "recursion");

fn fact(n) {
    let r = 1;
    while n > 1 {
        r *= n;
        n -= 1;
    }
    return r;
}
check(fact(10) == 3628800, "while loop");

fn make_counter() {
    let n = 0;
    return fn() {
        n += 1;
        return n;
    };
}
let c1 = make_counter();
let c2 = make_counter();
c1();
c1();
check(c1() == 3 and c2() == 1, "closures keep their own state");

fn compose(f, g) {
    return fn(v) { return f(g(v)); };
}
let inc_then_double = compose(fn(v) { return v * 2; }, fn(v) { return v + 1; });
check(inc_then_double(4) == 10, "higher-order functions");

fn gcd(a, b) {
    while b != 0 {
        let t = b;
        b = a % b;
        a = t;
    }
    return a;
}
check(gcd(1071, 462) == 21, "gcd");

fn is_prime(n) {
    if n < 2 { return false; }
    let d = 2;
    while d * d <= n {
        if n % d == 0 { return false; }
        d += 1;
    }
    return true;
}
check(len(filter(1..100, is_prime)) == 25, "25 primes below 100");

fn qsort(v) {
    if len(v) <= 1 { return v; }
    let pivot = v[0];
    let rest = substr_list(v, 1);
    return qsort(filter(rest, fn(x) { return x < pivot; })) + [pivot]
         + qsort(filter(rest, fn(x) { return x >= pivot; }));
}
fn substr_list(v, from) {
    let out = [];
    for i in from..len(v) { push(out, v[i]); }
    return out;
}
check(qsort([5, 3, 9, 1, 5, 7]) == [1, 3, 5, 5, 7, 9], "quicksort in qx");

# ---------------------------------------------------------------------
section("text");

fn word_lengths(text) {
    let counts = [0] * 12;
    for w in words(text) {
        let n = min(len(w), 11);
        counts[n] += 1;
    }
    return counts;
}
let wl = word_lengths("the quick brown fox jumps over the lazy dog");
check(wl[3] == 4 and wl[5] == 3 and wl[4] == 2, "word length histogram");

fn caesar(text, shift) {
    let out = "";
    for ch in text {
        let o = ord(ch);
        if o >= 97 and o <= 122 {
            out += chr((o - 97 + shift) % 26 + 97);
        } else {
            out += ch;
        }
    }
    return out;
}
check(caesar("hello, world", 3) == "khoor, zruog", "caesar cipher");
check(caesar(caesar("round trip", 11), 15) == "round trip", "caesar round trip");

print "all tests passed:", passed, "checks";
