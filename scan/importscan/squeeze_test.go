package importscan

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func TestSqueezerDropsWhitespaceOutsideStrings(t *testing.T) {
	in := "{ \"a b\" :\t[ 1 ,\n2 ] , \"c\\\" d\" : \"e\\\\\" ,\r\n \"f\": \" g \" }  \n"
	want := `{"a b":[1,2],"c\" d":"e\\","f":" g "}`
	for _, r := range []io.Reader{strings.NewReader(in), iotest.OneByteReader(strings.NewReader(in))} {
		got, err := io.ReadAll(&squeezer{r: r})
		if err != nil || string(got) != want {
			t.Fatalf("got %q, %v; want %q", got, err, want)
		}
	}
}

func TestSqueezerRefusesHugeValues(t *testing.T) {
	deep := `{"findings":[{"metadata":` + strings.Repeat("[", 100) + strings.Repeat("0,", maxValueBytes/2) + "0"
	s := &squeezer{r: strings.NewReader(deep)}
	if _, err := io.Copy(io.Discard, s); !errors.Is(err, ErrValueTooLarge) || !errors.Is(s.err, ErrValueTooLarge) {
		t.Fatalf("a 4 MiB finding: %v", err)
	}
	long := `{"target":"` + strings.Repeat("x", maxValueBytes+1)
	if _, err := io.Copy(io.Discard, &squeezer{r: strings.NewReader(long)}); !errors.Is(err, ErrValueTooLarge) {
		t.Fatalf("a 4 MiB string: %v", err)
	}
	// Many small findings are fine: the size is per value.
	var many bytes.Buffer
	many.WriteString(`{"findings":[`)
	for i := 0; i < 50000; i++ {
		many.WriteString(`{"title":"` + strings.Repeat("t", 100) + `"},`)
	}
	if _, err := io.Copy(io.Discard, &squeezer{r: &many}); err != nil {
		t.Fatalf("many small findings: %v", err)
	}
}

// TestReadReportsTheBodyCapNotAMissingField: a body cut by the cap while
// the decoder skips whitespace used to end as a 422 "findings: Field
// required"; the read error is what is reported.
func TestReadReportsTheBodyCapNotAMissingField(t *testing.T) {
	capErr := errors.New("body cap crossed")
	body := io.MultiReader(strings.NewReader("{"+strings.Repeat(" ", 1<<20)), iotest.ErrReader(capErr))
	_, err := Importer{}.Read(t.Context(), body, "t")
	if !errors.Is(err, capErr) {
		t.Fatalf("Read: %v, want the read error", err)
	}
}

func BenchmarkSqueezerSpaces(b *testing.B) {
	body := []byte("{" + strings.Repeat(" ", 64<<20))
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		io.Copy(io.Discard, &squeezer{r: bytes.NewReader(body)})
	}
}
