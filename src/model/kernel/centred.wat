;; The centred moving averages of the window featurizer's classical
;; decomposition (src/model/features.ts, `centredMeans`), in WebAssembly with
;; 128-bit SIMD (f64x2). Assembled by `npm run build:kernel`
;; (tools/build-kernel.ts, wabt's wat2wasm) into src/model/kernel/centred-wasm.ts.
;;
;; out[t] = s(t) / m for t in [from, to), with (half = floor(m / 2))
;;   even m: s = 0.5 · (z[t − half] + z[t + half]), then + z[t − half + 1] …
;;           + z[t + half − 1] in index order (the 2×m average);
;;   odd m:  s = 0, then + z[t − half] … + z[t + half] in index order.
;; A vector holds two adjacent points t and t + 1: the term i of both is
;; z[t + first + i] and z[t + 1 + first + i], two adjacent values, so one
;; load gives both and each lane adds its own terms in the TypeScript loop's
;; order (no fused multiply-add, a correctly rounded division): the same
;; bits. Eight points (four vectors, independent chains) at a time, then two,
;; then the last one alone.
;;
;; Memory (bytes): z at 0 (`values` values), out at `values` · 8 (out[t] at
;; that offset + t · 8, for t in [from, to)).
(module
  (import "env" "memory" (memory 1))
  (func (export "centredMeans") (param $values i32) (param $from i32) (param $to i32) (param $m i32)
    (local $half i32) (local $even i32) (local $first i32) (local $terms i32)
    (local $t i32) (local $i i32) (local $p i32) (local $q i32) (local $out i32)
    (local $mv v128) (local $half2 v128)
    (local $s0 v128) (local $s1 v128) (local $s2 v128) (local $s3 v128)
    (local $s f64)
    (local.set $half (i32.shr_u (local.get $m) (i32.const 1)))
    (local.set $even (i32.eqz (i32.and (local.get $m) (i32.const 1))))
    ;; even m: 0.5·(both ends) then the m − 1 inner values from t − half + 1; odd m: the m values from t − half
    (local.set $first (select (i32.sub (i32.const 1) (local.get $half)) (i32.sub (i32.const 0) (local.get $half)) (local.get $even)))
    (local.set $terms (select (i32.sub (local.get $m) (i32.const 1)) (local.get $m) (local.get $even)))
    (local.set $out (i32.shl (local.get $values) (i32.const 3)))
    (local.set $mv (f64x2.splat (f64.convert_i32_s (local.get $m))))
    (local.set $half2 (f64x2.splat (f64.const 0.5)))
    (local.set $t (local.get $from))
    ;; eight points at a time
    (block $done8 (loop $loop8
      (br_if $done8 (i32.gt_s (i32.add (local.get $t) (i32.const 8)) (local.get $to)))
      ;; $p: byte address of z[t − half]; $q: of z[t + half]
      (local.set $p (i32.shl (i32.sub (local.get $t) (local.get $half)) (i32.const 3)))
      (local.set $q (i32.shl (i32.add (local.get $t) (local.get $half)) (i32.const 3)))
      (if (local.get $even)
        (then
          (local.set $s0 (f64x2.mul (local.get $half2) (f64x2.add (v128.load offset=0 (local.get $p)) (v128.load offset=0 (local.get $q)))))
          (local.set $s1 (f64x2.mul (local.get $half2) (f64x2.add (v128.load offset=16 (local.get $p)) (v128.load offset=16 (local.get $q)))))
          (local.set $s2 (f64x2.mul (local.get $half2) (f64x2.add (v128.load offset=32 (local.get $p)) (v128.load offset=32 (local.get $q)))))
          (local.set $s3 (f64x2.mul (local.get $half2) (f64x2.add (v128.load offset=48 (local.get $p)) (v128.load offset=48 (local.get $q))))))
        (else
          (local.set $s0 (v128.const f64x2 0 0))
          (local.set $s1 (v128.const f64x2 0 0))
          (local.set $s2 (v128.const f64x2 0 0))
          (local.set $s3 (v128.const f64x2 0 0))))
      ;; $p: byte address of z[t + first + i]
      (local.set $p (i32.shl (i32.add (local.get $t) (local.get $first)) (i32.const 3)))
      (local.set $i (i32.const 0))
      (block $doneI (loop $loopI
        (br_if $doneI (i32.ge_s (local.get $i) (local.get $terms)))
        (local.set $s0 (f64x2.add (local.get $s0) (v128.load offset=0 (local.get $p))))
        (local.set $s1 (f64x2.add (local.get $s1) (v128.load offset=16 (local.get $p))))
        (local.set $s2 (f64x2.add (local.get $s2) (v128.load offset=32 (local.get $p))))
        (local.set $s3 (f64x2.add (local.get $s3) (v128.load offset=48 (local.get $p))))
        (local.set $p (i32.add (local.get $p) (i32.const 8)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $loopI)))
      (local.set $q (i32.add (local.get $out) (i32.shl (local.get $t) (i32.const 3))))
      (v128.store offset=0 (local.get $q) (f64x2.div (local.get $s0) (local.get $mv)))
      (v128.store offset=16 (local.get $q) (f64x2.div (local.get $s1) (local.get $mv)))
      (v128.store offset=32 (local.get $q) (f64x2.div (local.get $s2) (local.get $mv)))
      (v128.store offset=48 (local.get $q) (f64x2.div (local.get $s3) (local.get $mv)))
      (local.set $t (i32.add (local.get $t) (i32.const 8)))
      (br $loop8)))
    ;; two at a time
    (block $done2 (loop $loop2
      (br_if $done2 (i32.gt_s (i32.add (local.get $t) (i32.const 2)) (local.get $to)))
      (local.set $s0 (v128.const f64x2 0 0))
      (if (local.get $even)
        (then
          (local.set $s0 (f64x2.mul (local.get $half2)
            (f64x2.add (v128.load (i32.shl (i32.sub (local.get $t) (local.get $half)) (i32.const 3)))
                       (v128.load (i32.shl (i32.add (local.get $t) (local.get $half)) (i32.const 3))))))))
      (local.set $p (i32.shl (i32.add (local.get $t) (local.get $first)) (i32.const 3)))
      (local.set $i (i32.const 0))
      (block $doneJ (loop $loopJ
        (br_if $doneJ (i32.ge_s (local.get $i) (local.get $terms)))
        (local.set $s0 (f64x2.add (local.get $s0) (v128.load (local.get $p))))
        (local.set $p (i32.add (local.get $p) (i32.const 8)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $loopJ)))
      (v128.store (i32.add (local.get $out) (i32.shl (local.get $t) (i32.const 3))) (f64x2.div (local.get $s0) (local.get $mv)))
      (local.set $t (i32.add (local.get $t) (i32.const 2)))
      (br $loop2)))
    ;; the last one
    (if (i32.lt_s (local.get $t) (local.get $to))
      (then
        (local.set $s (f64.const 0))
        (if (local.get $even)
          (then
            (local.set $s (f64.mul (f64.const 0.5)
              (f64.add (f64.load (i32.shl (i32.sub (local.get $t) (local.get $half)) (i32.const 3)))
                       (f64.load (i32.shl (i32.add (local.get $t) (local.get $half)) (i32.const 3))))))))
        (local.set $p (i32.shl (i32.add (local.get $t) (local.get $first)) (i32.const 3)))
        (local.set $i (i32.const 0))
        (block $doneK (loop $loopK
          (br_if $doneK (i32.ge_s (local.get $i) (local.get $terms)))
          (local.set $s (f64.add (local.get $s) (f64.load (local.get $p))))
          (local.set $p (i32.add (local.get $p) (i32.const 8)))
          (local.set $i (i32.add (local.get $i) (i32.const 1)))
          (br $loopK)))
        (f64.store (i32.add (local.get $out) (i32.shl (local.get $t) (i32.const 3))) (f64.div (local.get $s) (f64.convert_i32_s (local.get $m))))))))
