/**
 * A minimal ONNX protobuf writer, enough to build tiny test models (a single 1x1 convolution)
 * without a dependency. Field numbers follow onnx/onnx.proto (ModelProto, GraphProto, NodeProto,
 * TensorProto, ValueInfoProto, TypeProto, TensorShapeProto, OperatorSetIdProto).
 */

class ProtoWriter {
  private bytes: number[] = [];

  private varint(v: number) {
    let n = BigInt(v);
    if (n < 0n) n += 1n << 64n;
    while (n >= 0x80n) {
      this.bytes.push(Number((n & 0x7fn) | 0x80n));
      n >>= 7n;
    }
    this.bytes.push(Number(n));
  }

  private key(field: number, wire: number) {
    this.varint((field << 3) | wire);
  }

  int(field: number, v: number) {
    this.key(field, 0);
    this.varint(v);
    return this;
  }

  bytesField(field: number, data: Uint8Array) {
    this.key(field, 2);
    this.varint(data.length);
    for (const b of data) this.bytes.push(b);
    return this;
  }

  string(field: number, s: string) {
    return this.bytesField(field, new TextEncoder().encode(s));
  }

  message(field: number, m: ProtoWriter) {
    return this.bytesField(field, m.finish());
  }

  float(field: number, v: number) {
    this.key(field, 5);
    const b = new Uint8Array(new Float32Array([v]).buffer);
    for (const x of b) this.bytes.push(x);
    return this;
  }

  finish(): Uint8Array {
    return Uint8Array.from(this.bytes);
  }
}

const FLOAT = 1;

function tensor(name: string, dims: number[], values: number[]) {
  const t = new ProtoWriter();
  for (const d of dims) t.int(1, d);
  t.int(2, FLOAT);
  t.string(8, name);
  t.bytesField(9, new Uint8Array(new Float32Array(values).buffer));
  return t;
}

function valueInfo(name: string, dims: number[]) {
  const shape = new ProtoWriter();
  for (const d of dims) shape.message(1, new ProtoWriter().int(1, d));
  const tensorType = new ProtoWriter().int(1, FLOAT).message(2, shape);
  return new ProtoWriter().string(1, name).message(2, new ProtoWriter().message(1, tensorType));
}

export interface Conv1x1Spec {
  /** weights[outChannel][inChannel] */
  weights: number[][];
  bias: number[];
  width: number;
  height: number;
  inputName?: string;
  outputName?: string;
}

/**
 * An ONNX model (opset 13) computing one 1x1 convolution: input [1, C, H, W] -> output
 * [1, K, H, W] with out[k] = bias[k] + sum_c weights[k][c] * in[c]. Returns the .onnx bytes.
 */
export function conv1x1Model(spec: Conv1x1Spec): Uint8Array {
  const k = spec.weights.length;
  const c = spec.weights[0].length;
  const input = spec.inputName ?? 'input';
  const output = spec.outputName ?? 'output';
  const node = new ProtoWriter()
    .string(1, input)
    .string(1, 'W')
    .string(1, 'B')
    .string(2, output)
    .string(3, 'conv')
    .string(4, 'Conv')
    .message(
      5,
      // AttributeProto kernel_shape: name = 1, ints = 8, type = 20 (INTS = 7)
      new ProtoWriter().string(1, 'kernel_shape').int(8, 1).int(8, 1).int(20, 7),
    );
  const graph = new ProtoWriter()
    .message(1, node)
    .string(2, 'conv1x1')
    .message(5, tensor('W', [k, c, 1, 1], spec.weights.flat()))
    .message(5, tensor('B', [k], spec.bias))
    .message(11, valueInfo(input, [1, c, spec.height, spec.width]))
    .message(12, valueInfo(output, [1, k, spec.height, spec.width]));
  return new ProtoWriter()
    .int(1, 7) // ir_version
    .string(2, 'mango-test')
    .message(7, graph)
    .message(8, new ProtoWriter().string(1, '').int(2, 13))
    .finish();
}
