export default function ContactUsMain() {
  return <main className="page">ContactUsMain</main>;
}
