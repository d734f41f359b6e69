// The bounds of the integer formats, as bigints so that every bound is exact. OpenAPI defines int32
// and int64 as signed 32- and 64-bit integers (OAS 3.1 "Data Types"; the OpenAPI Format Registry).
// The validator's formats, exact JSON's stand-ins, the violation messages and the harness's
// generators and fresh values all take them from here.

export const INT32_MIN = -(2n ** 31n);
export const INT32_MAX = 2n ** 31n - 1n;
export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;
/** 2^53: from here on a double no longer holds every integer (2^53 + 1 is the first it loses). */
export const TWO_53 = 2n ** 53n;
