export default function SignUp() {
  return <main className="page">SignUp</main>;
}
