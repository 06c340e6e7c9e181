export default function SignIn() {
  return <main className="page">SignIn</main>;
}
