package vm

import (
	"math"
	"strconv"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// compatZone is the zone of os.date without '!' and of os.time; nil means
// time.Local. Tests set it.
var compatZone *time.Location

func compatLocal() *time.Location {
	if compatZone != nil {
		return compatZone
	}
	return time.Local
}

// compatOsDate fixes os.date: gopher-lua maps C conversions to Go layouts,
// with wrong ones (%a is the literal "mon", %x is HH/MM/SS, %c and %p
// differ), many missing (%j %e %D %T %U ...), "*t" without yday and isdst,
// and the time argument truncated to an integer by CheckInt64 even when it
// is a numeric string. This is a strftime of the C locale with glibc's set
// of conversions, applied to the zone's local time or, after a leading '!',
// to UTC. An unknown conversion is written as it is ("%Q" stays "%Q"), as
// glibc does. A time whose year does not fit C's struct tm gives nil, as
// Lua does when gmtime/localtime fail.
func compatOsDate(L *lua.LState) int {
	format := compatOptString(L, 1, "date", "%c")
	var t time.Time
	if L.Get(2) == lua.LNil {
		t = time.Unix(time.Now().Unix(), 0)
	} else {
		x := compatCheckNumber(L, 2, "date")
		// time_t is 64-bit; its cast truncates. Bound x first so that Go's
		// own arithmetic cannot overflow; the year check below then decides.
		if x != x || math.Abs(x) > 1<<60 {
			L.Push(lua.LNil)
			return 1
		}
		t = time.Unix(int64(x), 0)
	}
	utc := strings.HasPrefix(format, "!")
	if utc {
		format = format[1:]
		t = t.UTC()
	} else {
		t = t.In(compatLocal())
	}
	if !compatYearFits(t.Year()) {
		L.Push(lua.LNil)
		return 1
	}
	if format == "*t" {
		tb := L.CreateTable(0, 9)
		tb.RawSetString("sec", lua.LNumber(t.Second()))
		tb.RawSetString("min", lua.LNumber(t.Minute()))
		tb.RawSetString("hour", lua.LNumber(t.Hour()))
		tb.RawSetString("day", lua.LNumber(t.Day()))
		tb.RawSetString("month", lua.LNumber(t.Month()))
		tb.RawSetString("year", lua.LNumber(t.Year()))
		tb.RawSetString("wday", lua.LNumber(t.Weekday()+1))
		tb.RawSetString("yday", lua.LNumber(t.YearDay()))
		tb.RawSetString("isdst", lua.LBool(!utc && t.IsDST()))
		L.Push(tb)
		return 1
	}
	L.Push(lua.LString(compatStrftime(t, format, utc)))
	return 1
}

// compatYearFits reports whether year-1900 fits C's int tm_year.
func compatYearFits(year int) bool {
	y := int64(year) - 1900
	return y >= math.MinInt32 && y <= math.MaxInt32
}

var (
	compatDays   = [...]string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"}
	compatMonths = [...]string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}
)

// compatStrftime formats t as C's strftime in the C locale (glibc's
// conversions). Years are written without padding, as glibc writes them.
func compatStrftime(t time.Time, format string, utc bool) string {
	var b strings.Builder
	num := func(v, width int, pad byte) {
		s := strconv.Itoa(v)
		if v < 0 {
			b.WriteString(s)
			return
		}
		for k := len(s); k < width; k++ {
			b.WriteByte(pad)
		}
		b.WriteString(s)
	}
	floorDiv := func(a, n int) int {
		q := a / n
		if a%n != 0 && (a < 0) != (n < 0) {
			q--
		}
		return q
	}
	mod100 := func(y int) int { return ((y % 100) + 100) % 100 }
	hour12 := func() int {
		h := t.Hour() % 12
		if h == 0 {
			h = 12
		}
		return h
	}
	ampm := func() string {
		if t.Hour() < 12 {
			return "AM"
		}
		return "PM"
	}
	yday := t.YearDay() - 1 // 0-based, as tm_yday
	wday := int(t.Weekday())
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' || i+1 == len(format) {
			b.WriteByte(c)
			continue
		}
		i++
		switch c = format[i]; c {
		case 'a':
			b.WriteString(compatDays[wday][:3])
		case 'A':
			b.WriteString(compatDays[wday])
		case 'b', 'h':
			b.WriteString(compatMonths[t.Month()-1][:3])
		case 'B':
			b.WriteString(compatMonths[t.Month()-1])
		case 'c':
			b.WriteString(compatStrftime(t, "%a %b %e %H:%M:%S %Y", utc))
		case 'C':
			num(floorDiv(t.Year(), 100), 0, '0')
		case 'd':
			num(t.Day(), 2, '0')
		case 'D', 'x':
			b.WriteString(compatStrftime(t, "%m/%d/%y", utc))
		case 'e':
			num(t.Day(), 2, ' ')
		case 'F':
			b.WriteString(compatStrftime(t, "%Y-%m-%d", utc))
		case 'g':
			y, _ := t.ISOWeek()
			num(mod100(y), 2, '0')
		case 'G':
			y, _ := t.ISOWeek()
			num(y, 0, '0')
		case 'H':
			num(t.Hour(), 2, '0')
		case 'I':
			num(hour12(), 2, '0')
		case 'j':
			num(yday+1, 3, '0')
		case 'k':
			num(t.Hour(), 2, ' ')
		case 'l':
			num(hour12(), 2, ' ')
		case 'm':
			num(int(t.Month()), 2, '0')
		case 'M':
			num(t.Minute(), 2, '0')
		case 'n':
			b.WriteByte('\n')
		case 'p':
			b.WriteString(ampm())
		case 'P':
			b.WriteString(strings.ToLower(ampm()))
		case 'r':
			b.WriteString(compatStrftime(t, "%I:%M:%S %p", utc))
		case 'R':
			b.WriteString(compatStrftime(t, "%H:%M", utc))
		case 's':
			b.WriteString(strconv.FormatInt(t.Unix(), 10))
		case 'S':
			num(t.Second(), 2, '0')
		case 't':
			b.WriteByte('\t')
		case 'T', 'X':
			b.WriteString(compatStrftime(t, "%H:%M:%S", utc))
		case 'u':
			num((wday+6)%7+1, 0, '0')
		case 'U':
			num((yday+7-wday)/7, 2, '0')
		case 'V':
			_, w := t.ISOWeek()
			num(w, 2, '0')
		case 'w':
			num(wday, 0, '0')
		case 'W':
			num((yday+7-(wday+6)%7)/7, 2, '0')
		case 'y':
			num(mod100(t.Year()), 2, '0')
		case 'Y':
			num(t.Year(), 0, '0')
		case 'z':
			_, off := t.Zone()
			sign := byte('+')
			if off < 0 {
				sign, off = '-', -off
			}
			b.WriteByte(sign)
			num(off/3600, 2, '0')
			num(off/60%60, 2, '0')
		case 'Z':
			if utc {
				b.WriteString("GMT") // glibc's gmtime names UTC so
			} else {
				name, _ := t.Zone()
				b.WriteString(name)
			}
		case '%':
			b.WriteByte('%')
		default:
			b.WriteByte('%')
			b.WriteByte(c)
		}
	}
	return b.String()
}

// compatOsTime fixes os.time: gopher-lua's defaults missing day, month and
// year (Lua raises "field 'day' missing in date table"), reads fields with
// rawget and ignores a numeric string's leading zeros oddly. This is Lua
// 5.1's: fields read with __index honoured, numbers or numeric strings
// truncated toward zero, hour defaulting to 12, min and sec to 0; the date
// normalised like mktime (month 13 is January of the next year, day 0 the
// last day of the month before, negative values count back) in the local
// zone; isdst ignored. Differences from PUC Lua 5.1 on purpose: a field
// beyond C's int range raises "field 'year' is out-of-bound" (Lua 5.3's
// words; 5.1 wraps it), and a result of -1 is returned, not nil.
func compatOsTime(L *lua.LState) int {
	if L.Get(1) == lua.LNil {
		L.Push(lua.LNumber(time.Now().Unix()))
		return 1
	}
	tb := compatCheckTable(L, 1, "time")
	sec := compatDateField(L, tb, "sec", 0)
	minute := compatDateField(L, tb, "min", 0)
	hour := compatDateField(L, tb, "hour", 12)
	day := compatDateField(L, tb, "day", -1)
	month := compatDateField(L, tb, "month", -1)
	year := compatDateField(L, tb, "year", -1)
	t := compatMktime(year, month, day, hour, minute, sec, compatLocal())
	if !compatYearFits(t.Year()) {
		L.Push(lua.LNil)
		return 1
	}
	L.Push(lua.LNumber(t.Unix()))
	return 1
}

// compatMktime is C's mktime with tm_isdst = -1: the fields are normalised
// (time.Date does that as mktime does), then the wall clock is read in loc.
// Where loc's offset changes, a wall clock that happens twice is read as
// the first (the daylight-saving one, as glibc reads it mostly), and one
// that does not happen (in a spring-forward gap) with the offset in force
// before the gap, so 02:30 in a 02:00-03:00 gap is 03:30 after it, as glibc
// does; time.Date leaves both choices unspecified.
func compatMktime(year, month, day, hour, minute, sec int, loc *time.Location) time.Time {
	wall := time.Date(year, time.Month(month), day, hour, minute, sec, 0, time.UTC)
	u := wall.Unix()
	_, offBefore := time.Unix(u-86400, 0).In(loc).Zone()
	_, offAfter := time.Unix(u+86400, 0).In(loc).Zone()
	if offBefore == offAfter {
		return time.Date(year, time.Month(month), day, hour, minute, sec, 0, loc)
	}
	same := func(t time.Time) bool {
		y1, m1, d1 := t.Date()
		y2, m2, d2 := wall.Date()
		return y1 == y2 && m1 == m2 && d1 == d2 && t.Hour() == wall.Hour() && t.Minute() == wall.Minute() && t.Second() == wall.Second()
	}
	tb := time.Unix(u-int64(offBefore), 0).In(loc)
	ta := time.Unix(u-int64(offAfter), 0).In(loc)
	switch okB, okA := same(tb), same(ta); {
	case okB && okA:
		if ta.Before(tb) {
			return ta
		}
		return tb
	case okA:
		return ta
	}
	return tb
}

// compatDateField reads tb[key] as Lua 5.1's getfield: a number (or numeric
// string) truncated to an int, else def, or an error when def is negative.
func compatDateField(L *lua.LState, tb *lua.LTable, key string, def int) int {
	var f float64
	ok := false
	switch v := L.GetField(tb, key).(type) {
	case lua.LNumber:
		f, ok = float64(v), true
	case lua.LString:
		f, ok = compatStr2Number(string(v))
	}
	if !ok {
		if def < 0 {
			L.RaiseError("field '%s' missing in date table", key)
		}
		return def
	}
	if f != f || f >= 2147483648.0 || f <= -2147483649.0 {
		L.RaiseError("field '%s' is out-of-bound", key)
	}
	return int(int32(f))
}
