// solution-begin: the error-free addition
// TODO: the rounded sum a + b, and in `error` what the rounding lost, so that a + b == sum + error
// TODO: exactly (Dekker's Fast2Sum, b - (sum - a), is exact when |a| >= |b|; Knuth's TwoSum in either order;
// TODO: __dadd_rn and __dsub_rn, which the compiler keeps as written)
error = 0;
return __dadd_rn(a, b);
// solution-end
// solution-begin: x into high + low, exactly
// TODO: two_sum x into high; two_sum its error into low; a rest that low could not hold goes to flush()
high = __dadd_rn(high, x);
// solution-end
